//! Fallback for large payloads when CMA is refused: a shared-memory file per
//! payload, written by the sender, read and removed by the receiver.
use super::shm::{self, context};
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};

/// Prefix of every spill file name of job `job`.
pub fn prefix(job: &str) -> String {
    format!("/vaced-{job}-spill-")
}

/// Write `data` to a new spill file for job `job`; returns its name
/// ("/vaced-<job>-spill-<pid>-<seq>").
pub fn write(job: &str, data: &[u8]) -> io::Result<String> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "{}{}-{}",
        prefix(job),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let fd = shm::open(&name, libc::O_RDWR | libc::O_CREAT | libc::O_EXCL)?;
    let res = shm::allocate(&fd, &name, data.len() as u64).and_then(|()| {
        File::from(fd)
            .write_all(data)
            .map_err(|e| context(format_args!("writing {} bytes to {name}", data.len()), e))
    });
    match res {
        Ok(()) => Ok(name),
        Err(e) => {
            let _ = shm::unlink(&name);
            Err(e)
        }
    }
}

/// Copy the spill file `name` into `dst` and remove it. The file must hold at
/// least `dst.len()` bytes (a longer one is a truncated receive).
pub fn take(name: &str, dst: &mut [u8]) -> io::Result<()> {
    let fd = shm::open(name, libc::O_RDONLY)?;
    let unlinked = shm::unlink(name);
    let size = shm::size(&fd, name)?;
    if size < dst.len() as u64 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("spill file {name} holds {size} bytes, {} wanted", dst.len()),
        ));
    }
    File::from(fd)
        .read_exact(dst)
        .map_err(|e| context(format_args!("reading {} bytes from {name}", dst.len()), e))?;
    unlinked
}

/// Remove every spill file of job `job` left in /dev/shm (by a rank that
/// died); returns how many were removed.
pub fn remove_all(job: &str) -> io::Result<usize> {
    let want = prefix(job);
    let mut n = 0;
    for entry in std::fs::read_dir("/dev/shm").map_err(|e| context("reading /dev/shm", e))? {
        let entry = entry.map_err(|e| context("reading /dev/shm", e))?;
        let Some(file) = entry.file_name().to_str().map(|f| format!("/{f}")) else {
            continue;
        };
        if file.starts_with(&want) && shm::unlink(&file).is_ok() {
            n += 1;
        }
    }
    Ok(n)
}
