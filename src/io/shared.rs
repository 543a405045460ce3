//! The shared file pointer: a counter (in etypes of the current view) in a
//! small side file next to the data file, read and updated under an
//! exclusive lock on the host (as ROMIO keeps it in a hidden file updated
//! under a file lock), so every rank sees one consistent counter. Each
//! update or read is one file-system operation of the target (`latency`).
//! Rank 0 removes the side file at MPI_File_close.
//!
//! MPI_File_read_ordered / write_ordered pass a token around the ranks in
//! order (ROMIO: a zero-byte receive from rank - 1, the pointer update, a
//! zero-byte send to rank + 1), then access the file collectively at the
//! offsets they got: data lands in rank order.
use super::file::{charge_op, comm, io_error};
use crate::coll;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_File};
use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Add `incr` to the counter; its old value.
pub fn fetch_add(path: &Path, incr: u64) -> std::io::Result<u64> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    f.lock()?;
    let mut b = [0u8; 8];
    let n = f.read(&mut b)?;
    let old = if n == 8 { u64::from_le_bytes(b) } else { 0 };
    if incr != 0 {
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&(old + incr).to_le_bytes())?;
    }
    f.unlock()?;
    Ok(old)
}

/// Set the counter.
pub fn set(path: &Path, v: u64) -> std::io::Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    f.lock()?;
    f.write_all(&v.to_le_bytes())?;
    f.unlock()
}

/// Reset the counter to 0 if it exists (MPI_File_set_view).
pub fn reset(path: &Path) -> std::io::Result<bool> {
    if path.exists() {
        set(path, 0)?;
        return Ok(true);
    }
    Ok(false)
}

impl World {
    /// One update of `fh`'s shared pointer by `incr` etypes (one operation
    /// on this rank's clock): the old value.
    pub(crate) fn shared_fetch_add(&mut self, fh: MPI_File, incr: u64) -> MpiResult<u64> {
        let f = self.io.get(fh)?;
        let r = fetch_add(&f.shfp, incr)
            .map_err(|e| io_error(&e, "cannot update the shared file pointer"))?;
        charge_op(self);
        Ok(r)
    }

    /// MPI_File_get_position_shared.
    pub fn file_position_shared(&mut self, fh: MPI_File) -> MpiResult<u64> {
        self.seq_or_shared(fh)?;
        self.shared_fetch_add(fh, 0)
    }

    fn seq_or_shared(&self, fh: MPI_File) -> MpiResult<()> {
        self.io.get(fh).map(|_| ())
    }

    /// MPI_File_seek_shared: collective; the same offset and whence
    /// everywhere (broadcasts), rank 0 moves the pointer (one operation),
    /// then a barrier.
    pub fn file_seek_shared(&mut self, fh: MPI_File, offset: i64, whence: i32) -> MpiResult<()> {
        self.io.get(fh)?;
        check_whence(whence)?;
        self.file_same(fh, offset, "the offset")?;
        self.file_same(fh, whence as i64, "whence")?;
        let f = self.io.get(fh)?;
        let cc = f.cc.clone();
        let mut r = Ok(());
        if cc.me == 0 {
            let base = match whence {
                sys::MPI_SEEK_SET => 0,
                sys::MPI_SEEK_CUR => {
                    fetch_add(&f.shfp, 0).map_err(|e| io_error(&e, "shared file pointer"))? as i64
                }
                _ => {
                    let size = f.host.metadata().map(|m| m.len()).unwrap_or(0);
                    f.view.position_of_byte(size) as i64
                }
            };
            let to = base + offset;
            r = if to < 0 {
                fail(
                    sys::MPI_ERR_ARG,
                    format!("the shared file pointer would move to {to} (negative)"),
                )
            } else {
                set(&f.shfp, to as u64).map_err(|e| io_error(&e, "shared file pointer"))
            };
            charge_op(self);
        }
        coll::barrier::barrier(&mut comm(self, &cc));
        r
    }
}

/// MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END; MPI_ERR_ARG otherwise.
pub fn check_whence(whence: i32) -> MpiResult<()> {
    match whence {
        sys::MPI_SEEK_SET | sys::MPI_SEEK_CUR | sys::MPI_SEEK_END => Ok(()),
        _ => fail(sys::MPI_ERR_ARG, format!("invalid whence {whence}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_in_a_side_file() {
        let dir = std::env::temp_dir().join(format!("vaced-shfp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(".x.shfp");
        assert!(!reset(&p).unwrap());
        assert_eq!(fetch_add(&p, 5).unwrap(), 0);
        assert_eq!(fetch_add(&p, 3).unwrap(), 5);
        assert_eq!(fetch_add(&p, 0).unwrap(), 8);
        set(&p, 2).unwrap();
        assert_eq!(fetch_add(&p, 0).unwrap(), 2);
        assert!(reset(&p).unwrap());
        assert_eq!(fetch_add(&p, 0).unwrap(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
