//! A file that a rank streams a long record to (a timeline, a what-if run's
//! call log) without the job's memory growing with it: every
//! [`WRITE_BACK`] bytes written, they are written back to the disk and
//! dropped from the page cache, which the job's memory (its cgroup) would
//! otherwise count, a file of gigabytes as gigabytes of memory. A file read
//! again soon (a call log, by the replays right after the run) may keep its
//! first bytes cached ([`StreamFile::keeping`]).
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Bytes written between two write-backs (a job of 1024 ranks then holds
/// at most 256 MiB of its files in the page cache).
pub const WRITE_BACK: u64 = 256 << 10;

/// A file written front to back, its written part kept out of memory.
pub struct StreamFile {
    file: File,
    /// Bytes written, and the end of what was written back (or of what is
    /// kept cached, while less is written).
    written: u64,
    dropped: u64,
}

impl StreamFile {
    pub fn create(path: &Path) -> io::Result<StreamFile> {
        Ok(StreamFile {
            file: File::create(path)?,
            written: 0,
            dropped: 0,
        })
    }

    /// Leave the first `bytes` of the file in the page cache, neither
    /// written back nor dropped here (for a file read again soon).
    pub fn keeping(mut self, bytes: u64) -> StreamFile {
        self.dropped = self.dropped.max(bytes);
        self
    }

    /// Write back and drop what was written since the last time.
    fn write_back(&mut self) {
        if self.written <= self.dropped {
            return;
        }
        let (from, len) = (self.dropped as i64, (self.written - self.dropped) as i64);
        let fd = self.file.as_raw_fd();
        // SAFETY: plain system calls on our own open descriptor over a
        // range of it; they read and write no memory of ours. Failures only
        // leave the pages cached (memory, not correctness).
        unsafe {
            libc::sync_file_range(
                fd,
                from,
                len,
                libc::SYNC_FILE_RANGE_WAIT_BEFORE
                    | libc::SYNC_FILE_RANGE_WRITE
                    | libc::SYNC_FILE_RANGE_WAIT_AFTER,
            );
            libc::posix_fadvise(fd, from, len, libc::POSIX_FADV_DONTNEED);
        }
        self.dropped = self.written;
    }
}

impl Write for StreamFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        if self.written >= self.dropped + WRITE_BACK {
            self.write_back();
        }
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for StreamFile {
    fn drop(&mut self) {
        self.write_back();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let p = std::env::temp_dir().join(format!("vaced-stream-{}", std::process::id()));
        let chunk: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
        {
            let mut f = StreamFile::create(&p).unwrap();
            for _ in 0..3 {
                f.write_all(&chunk).unwrap();
            }
            assert!(f.dropped >= 2 * WRITE_BACK, "written back as it went");
        }
        let back = std::fs::read(&p).unwrap();
        assert_eq!(back.len(), 3 << 20);
        assert!(back.chunks(1 << 20).all(|c| c == chunk.as_slice()));
        std::fs::remove_file(&p).unwrap();
    }

    /// What is kept cached is not written back; what follows it is.
    #[test]
    fn the_kept_part_stays_cached() {
        let p = std::env::temp_dir().join(format!("vaced-stream-keep-{}", std::process::id()));
        let chunk = vec![7u8; 1 << 20];
        {
            let mut f = StreamFile::create(&p).unwrap().keeping(2 << 20);
            f.write_all(&chunk).unwrap();
            assert_eq!(f.dropped, 2 << 20, "nothing written back yet");
            f.write_all(&chunk).unwrap();
            f.write_all(&chunk).unwrap();
            assert!(f.dropped > 2 << 20, "written back beyond the kept part");
        }
        assert_eq!(std::fs::read(&p).unwrap().len(), 3 << 20);
        std::fs::remove_file(&p).unwrap();
    }
}
