//! MPI_Status contents: the byte count split over `count_lo` /
//! `count_hi_and_cancelled` as MPICH does (bit 0 of the latter is the
//! cancelled flag, the bits above it the high word of the count), the empty
//! and null-process statuses, and MPI_Get_count.
use crate::mpi::datatype::Datatype;
use crate::sys::{self, MPI_Status};
use std::os::raw::c_int;

pub fn make_status(source: i32, tag: i32, error: c_int, bytes: u64, cancelled: bool) -> MPI_Status {
    let hi = ((bytes >> 32) as u32) << 1;
    MPI_Status {
        count_lo: bytes as u32 as c_int,
        count_hi_and_cancelled: (hi | cancelled as u32) as c_int,
        MPI_SOURCE: source,
        MPI_TAG: tag,
        MPI_ERROR: error,
    }
}

/// The status of an inactive request (MPI 3.1 section 3.7.3).
pub fn empty_status() -> MPI_Status {
    make_status(
        sys::MPI_ANY_SOURCE,
        sys::MPI_ANY_TAG,
        sys::MPI_SUCCESS,
        0,
        false,
    )
}

/// The status of a communication with MPI_PROC_NULL.
pub fn proc_null_status() -> MPI_Status {
    make_status(
        sys::MPI_PROC_NULL,
        sys::MPI_ANY_TAG,
        sys::MPI_SUCCESS,
        0,
        false,
    )
}

pub fn status_bytes(st: &MPI_Status) -> u64 {
    let hi = (st.count_hi_and_cancelled as u32 >> 1) as u64;
    (hi << 32) | st.count_lo as u32 as u64
}

pub fn status_cancelled(st: &MPI_Status) -> bool {
    st.count_hi_and_cancelled & 1 == 1
}

/// MPI_Get_count: whole elements of `ty` in the status, MPI_UNDEFINED when the
/// byte count is not a multiple of the type size or does not fit an int.
pub fn get_count(st: &MPI_Status, ty: &Datatype) -> c_int {
    let bytes = status_bytes(st);
    let size = ty.size() as u64;
    if size == 0 {
        return if bytes == 0 { 0 } else { sys::MPI_UNDEFINED };
    }
    if !bytes.is_multiple_of(size) {
        return sys::MPI_UNDEFINED;
    }
    c_int::try_from(bytes / size).unwrap_or(sys::MPI_UNDEFINED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn count_split_like_mpich() {
        let st = make_status(3, 7, 0, 0x5_0000_0010, true);
        assert_eq!(st.count_lo, 0x10);
        assert_eq!(st.count_hi_and_cancelled, (5 << 1) | 1);
        assert_eq!(status_bytes(&st), 0x5_0000_0010);
        assert!(status_cancelled(&st));
        let st = make_status(3, 7, 0, 0xffff_fff0, false);
        assert_eq!(st.count_lo, -16);
        assert_eq!(st.count_hi_and_cancelled, 0);
        assert_eq!(status_bytes(&st), 0xffff_fff0);
        assert!(!status_cancelled(&st));
    }

    #[test]
    fn empty_and_null() {
        let e = empty_status();
        assert_eq!(
            (e.MPI_SOURCE, e.MPI_TAG, e.MPI_ERROR),
            (sys::MPI_ANY_SOURCE, sys::MPI_ANY_TAG, 0)
        );
        assert_eq!(status_bytes(&e), 0);
        let n = proc_null_status();
        assert_eq!(
            (n.MPI_SOURCE, n.MPI_TAG),
            (sys::MPI_PROC_NULL, sys::MPI_ANY_TAG)
        );
        assert_eq!(status_bytes(&n), 0);
    }

    #[test]
    fn get_count_rules() {
        let t = TypeTable::new();
        let int = t.get(sys::MPI_INT).unwrap();
        let dint = t.get(sys::MPI_DOUBLE_INT).unwrap();
        assert_eq!(get_count(&make_status(0, 0, 0, 40, false), &int), 10);
        assert_eq!(
            get_count(&make_status(0, 0, 0, 41, false), &int),
            sys::MPI_UNDEFINED
        );
        assert_eq!(get_count(&make_status(0, 0, 0, 0, false), &int), 0);
        // pair types count in packed bytes: 3 x 12
        assert_eq!(get_count(&make_status(0, 0, 0, 36, false), &dint), 3);
        assert_eq!(get_count(&make_status(0, 0, 0, 48, false), &dint), 4);
        // more elements than an int holds
        let byte = t.get(sys::MPI_BYTE).unwrap();
        assert_eq!(
            get_count(&make_status(0, 0, 0, 1 << 31, false), &byte),
            sys::MPI_UNDEFINED
        );
        assert_eq!(
            get_count(&make_status(0, 0, 0, (1 << 31) - 1, false), &byte),
            i32::MAX
        );
    }
}

/// MPI_Status_set_elements(_x): the packed bytes of `count` basic elements
/// of `ty` (whole elements of `ty`, then the first basic elements of one
/// more), so that MPI_Get_elements returns `count` and MPI_Get_count the
/// whole elements (MPI_UNDEFINED if they are not whole).
pub fn elements_bytes(ty: &Datatype, count: u64) -> u64 {
    let per = ty.elements_per_item();
    if per == 0 {
        return 0;
    }
    let mut bytes = count / per * ty.size() as u64;
    let mut rest = count % per;
    for &(s, k) in ty.runs() {
        let n = rest.min(k);
        bytes += n * s as u64;
        rest -= n;
        if rest == 0 {
            break;
        }
    }
    bytes
}

/// Set the byte count of `st`, keeping its cancelled flag.
pub fn set_bytes(st: &mut MPI_Status, bytes: u64) {
    let c = status_cancelled(st);
    let n = make_status(0, 0, 0, bytes, c);
    st.count_lo = n.count_lo;
    st.count_hi_and_cancelled = n.count_hi_and_cancelled;
}

/// Set the cancelled flag of `st`, keeping its byte count.
pub fn set_cancelled(st: &mut MPI_Status, cancelled: bool) {
    st.count_hi_and_cancelled = (st.count_hi_and_cancelled & !1) | cancelled as c_int;
}

#[cfg(test)]
mod setter_tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn set_elements_agrees_with_get() {
        let t = TypeTable::new();
        let int = t.get(sys::MPI_INT).unwrap();
        let mut st = make_status(1, 2, 0, 0, true);
        set_bytes(&mut st, elements_bytes(&int, 7));
        assert_eq!(get_count(&st, &int), 7);
        assert_eq!(int.elements(status_bytes(&st)), Some(7));
        assert!(status_cancelled(&st));
        set_cancelled(&mut st, false);
        assert!(!status_cancelled(&st));
        assert_eq!(status_bytes(&st), 28);
        // MPI_DOUBLE_INT: two basic elements (8 + 4 bytes) per element
        let dint = t.get(sys::MPI_DOUBLE_INT).unwrap();
        set_bytes(&mut st, elements_bytes(&dint, 4));
        assert_eq!(status_bytes(&st), 24);
        assert_eq!(dint.elements(24), Some(4));
        assert_eq!(get_count(&st, &dint), 2);
        set_bytes(&mut st, elements_bytes(&int, 1 << 33));
        assert_eq!(status_bytes(&st), 4 << 33);
    }
}
