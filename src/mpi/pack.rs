//! MPI_Pack, MPI_Unpack and MPI_Pack_size on checked arguments: the packed
//! form is the one that travels on the wire (the type map's data in order,
//! no header, as MPICH packs on a homogeneous system), written at or read
//! from a byte position of a user buffer.
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::typemap::count_arg;
use crate::sys;
use std::os::raw::c_int;

/// Checked arguments of MPI_Pack / MPI_Unpack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackArgs {
    /// Elements of the datatype to pack or unpack.
    pub count: usize,
    /// Size of the packed buffer (outsize / insize).
    pub buf_size: usize,
    /// Byte position in the packed buffer.
    pub position: usize,
    /// Packed bytes of the elements.
    pub bytes: usize,
}

impl PackArgs {
    /// The position after the call.
    pub fn new_position(&self) -> c_int {
        (self.position + self.bytes) as c_int
    }
}

fn non_negative(v: c_int, what: &str) -> MpiResult<usize> {
    usize::try_from(v).or_else(|_| fail(sys::MPI_ERR_ARG, format!("invalid {what} {v} (negative)")))
}

/// MPI_Pack: `incount` elements of `ty` into a buffer of `outsize` bytes at
/// `position` (MPI_ERR_COUNT for a negative count, MPI_ERR_ARG for a
/// negative size or position or when the data does not fit).
pub fn pack_args(
    ty: &Datatype,
    incount: c_int,
    outsize: c_int,
    position: c_int,
) -> MpiResult<PackArgs> {
    let count = count_arg(incount, "incount")?;
    let buf_size = non_negative(outsize, "outsize")?;
    let position = non_negative(position, "position")?;
    let bytes = ty.packed_size(count);
    if position > buf_size || bytes > buf_size - position {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "pack buffer too small: {count} elements of {} need {bytes} bytes, \
                 {} left after position {position} of outsize {buf_size}",
                ty.name(),
                buf_size.saturating_sub(position)
            ),
        );
    }
    Ok(PackArgs {
        count,
        buf_size,
        position,
        bytes,
    })
}

/// MPI_Unpack: `outcount` elements of `ty` from a buffer of `insize` bytes
/// at `position` (errors as [`pack_args`]; MPI_ERR_ARG when the buffer ends
/// before the data).
pub fn unpack_args(
    ty: &Datatype,
    insize: c_int,
    position: c_int,
    outcount: c_int,
) -> MpiResult<PackArgs> {
    let count = count_arg(outcount, "outcount")?;
    let buf_size = non_negative(insize, "insize")?;
    let position = non_negative(position, "position")?;
    let bytes = ty.packed_size(count);
    if position > buf_size || bytes > buf_size - position {
        return fail(
            sys::MPI_ERR_ARG,
            format!(
                "unpack buffer too short: {count} elements of {} need {bytes} bytes, \
                 {} left after position {position} of insize {buf_size}",
                ty.name(),
                buf_size.saturating_sub(position)
            ),
        );
    }
    Ok(PackArgs {
        count,
        buf_size,
        position,
        bytes,
    })
}

/// MPI_Pack_size: `incount * size` (MPICH adds no header); MPI_ERR_ARG if
/// that does not fit an int.
pub fn pack_size(ty: &Datatype, incount: c_int) -> MpiResult<c_int> {
    let count = count_arg(incount, "incount")?;
    let bytes = ty.packed_size(count);
    c_int::try_from(bytes).or_else(|_| {
        fail(
            sys::MPI_ERR_ARG,
            format!(
                "{count} elements of {} pack into {bytes} bytes, more than an int holds",
                ty.name()
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn pack_args_check_room_and_signs() {
        let t = TypeTable::new();
        let dint = t.get(sys::MPI_DOUBLE_INT).unwrap();
        let a = pack_args(&dint, 2, 30, 4).unwrap();
        assert_eq!((a.count, a.bytes, a.position, a.buf_size), (2, 24, 4, 30));
        assert_eq!(a.new_position(), 28);
        let e = pack_args(&dint, 2, 30, 7).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            e.msg,
            "pack buffer too small: 2 elements of MPI_DOUBLE_INT need 24 bytes, \
             23 left after position 7 of outsize 30"
        );
        assert_eq!(
            pack_args(&dint, -1, 30, 0).unwrap_err().class,
            sys::MPI_ERR_COUNT
        );
        assert_eq!(
            pack_args(&dint, 1, -1, 0).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(
            pack_args(&dint, 1, 30, -2).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        // a position past the end
        assert_eq!(
            pack_args(&dint, 0, 30, 31).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(pack_args(&dint, 0, 30, 30).unwrap().new_position(), 30);
    }

    #[test]
    fn unpack_args_check_the_data_is_there() {
        let t = TypeTable::new();
        let int = t.get(sys::MPI_INT).unwrap();
        assert_eq!(unpack_args(&int, 12, 4, 2).unwrap().new_position(), 12);
        let e = unpack_args(&int, 12, 8, 2).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert!(e.msg.starts_with("unpack buffer too short"), "{}", e.msg);
        assert_eq!(
            unpack_args(&int, 12, 0, -3).unwrap_err().class,
            sys::MPI_ERR_COUNT
        );
    }

    #[test]
    fn pack_size_is_count_times_size() {
        let t = TypeTable::new();
        assert_eq!(pack_size(&t.get(sys::MPI_SHORT_INT).unwrap(), 5), Ok(30));
        assert_eq!(pack_size(&t.get(sys::MPI_INT).unwrap(), 0), Ok(0));
        let e = pack_size(&t.get(sys::MPI_DOUBLE).unwrap(), 1 << 28).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            pack_size(&t.get(sys::MPI_INT).unwrap(), -1)
                .unwrap_err()
                .class,
            sys::MPI_ERR_COUNT
        );
    }
}
