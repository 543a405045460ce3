//! The MPI_Buffer_attach buffer: which user buffer is attached and how much of
//! it buffered sends hold. The data itself never goes there: p2p copies a
//! buffered send's data out when it starts (SendMode::Buffered), so the space
//! a message needs (packed size + MPI_BSEND_OVERHEAD) is only held for the
//! duration of that start; the check still rejects what real MPI rejects.
use crate::mpi::error::{fail, MpiResult};
use crate::sys;

#[derive(Debug, Default)]
pub struct BsendBuffer {
    /// (address, size) of the attached user buffer.
    attached: Option<(usize, usize)>,
    in_use: usize,
}

impl BsendBuffer {
    pub fn attach(&mut self, addr: usize, size: i32) -> MpiResult<()> {
        if let Some((_, old)) = self.attached {
            return fail(
                sys::MPI_ERR_BUFFER,
                format!("a buffer of {old} bytes is already attached (detach it first)"),
            );
        }
        let size = match usize::try_from(size) {
            Ok(s) => s,
            Err(_) => return fail(sys::MPI_ERR_ARG, format!("invalid buffer size {size}")),
        };
        if addr == 0 && size > 0 {
            return fail(sys::MPI_ERR_BUFFER, format!("null buffer of {size} bytes"));
        }
        self.attached = Some((addr, size));
        Ok(())
    }

    /// Detach: (address, size) of the buffer, (0, 0) when none is attached.
    /// Outstanding buffered sends have all copied their data already.
    pub fn detach(&mut self) -> (usize, usize) {
        self.attached.take().unwrap_or((0, 0))
    }

    /// Reserve room for a buffered message of `bytes` packed bytes; returns
    /// the space to hand back with `release`.
    pub fn reserve(&mut self, bytes: usize) -> MpiResult<usize> {
        let need = bytes + sys::MPI_BSEND_OVERHEAD as usize;
        let Some((_, size)) = self.attached else {
            return fail(
                sys::MPI_ERR_BUFFER,
                format!(
                    "no buffer attached for a buffered send of {bytes} bytes \
                     (call MPI_Buffer_attach with at least {need} bytes)"
                ),
            );
        };
        let free = size - self.in_use;
        if need > free {
            return fail(
                sys::MPI_ERR_BUFFER,
                format!(
                    "attached buffer too small: a buffered send of {bytes} bytes needs \
                     {need} bytes (with MPI_BSEND_OVERHEAD), {free} of {size} are free"
                ),
            );
        }
        self.in_use += need;
        Ok(need)
    }

    pub fn release(&mut self, space: usize) {
        self.in_use -= space;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserve_needs_size_plus_overhead() {
        let mut b = BsendBuffer::default();
        let e = b.reserve(10).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_BUFFER);
        assert_eq!(
            e.msg,
            "no buffer attached for a buffered send of 10 bytes (call MPI_Buffer_attach with at least 106 bytes)"
        );
        b.attach(0x1000, 200).unwrap();
        assert_eq!(b.reserve(104).unwrap(), 200);
        let e = b.reserve(0).unwrap_err();
        assert_eq!(
            e.msg,
            "attached buffer too small: a buffered send of 0 bytes needs 96 bytes (with MPI_BSEND_OVERHEAD), 0 of 200 are free"
        );
        b.release(200);
        assert_eq!(b.reserve(105).unwrap_err().class, sys::MPI_ERR_BUFFER);
        assert_eq!(b.reserve(4).unwrap(), 100);
        b.release(100);
        assert_eq!(b.detach(), (0x1000, 200));
        assert_eq!(b.detach(), (0, 0));
    }

    #[test]
    fn attach_errors() {
        let mut b = BsendBuffer::default();
        assert_eq!(b.attach(0x10, -1).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(b.attach(0, 8).unwrap_err().class, sys::MPI_ERR_BUFFER);
        b.attach(0x10, 8).unwrap();
        let e = b.attach(0x20, 8).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_BUFFER);
        assert_eq!(
            e.msg,
            "a buffer of 8 bytes is already attached (detach it first)"
        );
    }
}
