//! The host memory of a shared-memory window (MPI_Win_allocate_shared): one
//! POSIX shared-memory object per window, `/vaced-<job>-win-<tag>`, created
//! by the window's first rank and mapped by every member process, so loads
//! and stores of one rank are seen by the others.
//!
//! The object starts with a header of [`HEADER`] bytes holding the
//! window's accumulate lock (a futex word: accumulate-like operations of
//! different processes on the window are atomic with respect to each
//! other); the ranks' memory follows. The name is removed by
//! [`WinShm::unlink`] when the window is freed (the mappings stay valid
//! until dropped); if the job dies first, the launcher removes every
//! `/dev/shm/vaced-<job>*`, this object included.
use super::buf::RecvBuf;
use super::futex;
use super::shm::{self, Mapping};
use std::io;
use std::sync::atomic::AtomicU32;

/// Bytes before the ranks' memory (the lock word; keeps the memory
/// page-friendly and 64-byte aligned).
pub const HEADER: usize = 64;

/// The name of a window's object for job `job`.
pub fn name(job: &str, tag: &str) -> String {
    format!("/vaced-{job}-win-{tag}")
}

/// One process's mapping of a shared window's object.
pub struct WinShm {
    map: Mapping,
    name: String,
    /// Bytes of memory after the header.
    len: usize,
}

impl WinShm {
    /// Create the object `name` with room for `len` bytes of memory (zero
    /// filled) and map it.
    pub fn create(name: &str, len: usize) -> io::Result<WinShm> {
        let fd = shm::open(name, libc::O_RDWR | libc::O_CREAT | libc::O_EXCL)?;
        let total = HEADER + len;
        if let Err(e) = shm::allocate(&fd, name, total as u64) {
            let _ = shm::unlink(name);
            return Err(e);
        }
        match Mapping::new(&fd, name, total) {
            Ok(map) => Ok(WinShm {
                map,
                name: name.to_string(),
                len,
            }),
            Err(e) => {
                let _ = shm::unlink(name);
                Err(e)
            }
        }
    }

    /// Map the object `name` another process created (`len` bytes of
    /// memory).
    pub fn attach(name: &str, len: usize) -> io::Result<WinShm> {
        let fd = shm::open(name, libc::O_RDWR)?;
        let total = HEADER + len;
        let size = shm::size(&fd, name)?;
        if size < total as u64 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{name} holds {size} bytes, {total} expected"),
            ));
        }
        Ok(WinShm {
            map: Mapping::new(&fd, name, total)?,
            name: name.to_string(),
            len,
        })
    }

    /// Remove the object's name (every member has mapped it).
    pub fn unlink(&self) -> io::Result<()> {
        shm::unlink(&self.name)
    }

    /// Address of byte `off` of the memory (after the header).
    pub fn addr(&self, off: usize) -> usize {
        self.map.ptr() as usize + HEADER + off
    }

    /// Bytes `off .. off + len` of the memory as a buffer (a rank's part,
    /// or the target bytes of a direct operation).
    pub fn part(&self, off: usize, len: usize) -> RecvBuf {
        assert!(
            off.checked_add(len).is_some_and(|e| e <= self.len),
            "{}: bytes {off}..+{len} outside its {} bytes",
            self.name,
            self.len
        );
        // SAFETY: the range lies inside the mapping (checked above), which
        // lives as long as `self`; the caller keeps `self` (the window)
        // alive while the buffer is used. Other processes may write the same
        // bytes: MPI makes such conflicting accesses the program's error,
        // and accumulates are serialized by `lock`.
        unsafe { RecvBuf::from_raw((self.map.ptr()).add(HEADER + off), len) }
    }

    /// Take the window's accumulate lock (held until the guard drops).
    pub fn lock(&self) -> futex::Guard<'_> {
        // SAFETY: the first 4 bytes of the header are the lock word: aligned
        // (page-aligned mapping), valid as long as the mapping, and only
        // ever accessed atomically by every process.
        let word = unsafe { &*(self.map.ptr() as *const AtomicU32) };
        futex::lock(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_mappings_share_memory_and_the_name_goes() {
        let n = name(&format!("test-{}", std::process::id()), "1");
        let a = WinShm::create(&n, 100).unwrap();
        let b = WinShm::attach(&n, 100).unwrap();
        a.part(10, 4).as_mut_slice().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(b.part(10, 4).as_mut_slice(), &[1, 2, 3, 4]);
        assert_eq!(b.part(0, 1).as_mut_slice(), &[0]);
        {
            let _g = a.lock();
        }
        let _g = b.lock();
        a.unlink().unwrap();
        assert!(WinShm::attach(&n, 100).is_err());
        assert_eq!(a.addr(0) % 64, 0);
    }
}
