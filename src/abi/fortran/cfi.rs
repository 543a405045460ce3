//! C descriptors of Fortran 2018 (`ISO_Fortran_binding.h`): what gfortran
//! passes to the `BIND(C)` interfaces of the `mpi_f08` module for an
//! assumed-rank choice buffer (`TYPE(*), DIMENSION(..)`) and for an
//! assumed-length string (`CHARACTER(LEN=*)`), instead of a plain address.
//!
//! Only the fields the bindings need are read: the base address, the
//! element length (a string's length) and, to tell contiguous arrays from
//! sections with strides, the rank and each dimension's extent and stride.
//! The layout is gfortran's (GCC 12 and later; the standard fixes the
//! first field and the member names, gfortran fixes their types).
use std::os::raw::{c_int, c_void};

/// `CFI_dim_t`: one dimension of the array.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CfiDim {
    /// `lower_bound`
    pub lower_bound: isize,
    /// `extent`: the number of elements (-1 in the last dimension of an
    /// assumed-size array).
    pub extent: isize,
    /// `sm`: the distance in bytes between two elements of this dimension.
    pub sm: isize,
}

/// `CFI_cdesc_t`, followed in memory by `rank` [`CfiDim`]s.
#[repr(C)]
#[derive(Debug)]
pub struct CfiDesc {
    /// `base_addr`: the first element (null for an unallocated array).
    pub base_addr: *mut c_void,
    /// `elem_len`: the size of one element in bytes (a string: its length).
    pub elem_len: usize,
    /// `version`
    pub version: c_int,
    /// `rank`: 0 for a scalar.
    pub rank: i8,
    /// `attribute`
    pub attribute: i8,
    /// `type`
    pub type_: i16,
    /// `dim[]`
    pub dim: [CfiDim; 0],
}

/// Does the descriptor describe one contiguous block of memory (elements
/// in array element order, no gaps)? Scalars, empty arrays and arrays
/// whose dimensions have the strides of a contiguous array are; array
/// sections with a stride, or of a non-leading dimension, are not.
///
/// # Safety
/// `d` points to a descriptor that gfortran passed, followed by its
/// `rank` dimensions.
pub unsafe fn is_contiguous(d: *const CfiDesc) -> bool {
    // SAFETY: a descriptor (caller).
    let d = unsafe { &*d };
    let rank = d.rank.max(0) as usize;
    // SAFETY: `rank` dimensions follow the header (caller).
    let dims = unsafe { std::slice::from_raw_parts(d.dim.as_ptr(), rank) };
    if dims.iter().any(|x| x.extent == 0) {
        return true;
    }
    let mut expected = d.elem_len as isize;
    for x in dims {
        // a dimension of one element may have any stride; -1 is the last
        // dimension of an assumed-size array (its stride still counts)
        if x.extent != 1 && x.sm != expected {
            return false;
        }
        expected = expected.saturating_mul(x.extent.max(1));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A descriptor with room for `N` dimensions.
    #[repr(C)]
    struct Desc<const N: usize> {
        head: CfiDesc,
        dims: [CfiDim; N],
    }

    fn desc<const N: usize>(elem_len: usize, dims: [(isize, isize); N]) -> Desc<N> {
        Desc {
            head: CfiDesc {
                base_addr: std::ptr::null_mut(),
                elem_len,
                version: 1,
                rank: N as i8,
                attribute: 2,
                type_: 0,
                dim: [],
            },
            dims: dims.map(|(extent, sm)| CfiDim {
                lower_bound: 0,
                extent,
                sm,
            }),
        }
    }

    fn contiguous<const N: usize>(d: &Desc<N>) -> bool {
        // SAFETY: the header is followed by its N dimensions.
        unsafe { is_contiguous(&d.head) }
    }

    #[test]
    fn scalars_and_whole_arrays_are_contiguous() {
        assert!(contiguous(&desc(8, [])));
        assert!(contiguous(&desc(4, [(10, 4)])));
        assert!(contiguous(&desc(4, [(3, 4), (5, 12)])));
        // an assumed-size actual argument: extent -1 in the last dimension
        assert!(contiguous(&desc(4, [(3, 4), (-1, 12)])));
        // one element: any stride
        assert!(contiguous(&desc(4, [(1, 400)])));
        // empty: nothing to transfer
        assert!(contiguous(&desc(4, [(0, 8)])));
    }

    #[test]
    fn sections_with_strides_are_not() {
        // a(1:9:2)
        assert!(!contiguous(&desc(4, [(5, 8)])));
        // a(1:2, :) of a 3 x 5 array
        assert!(!contiguous(&desc(4, [(2, 4), (5, 12)])));
        // a row a(1, :) of a 3 x 5 array
        assert!(!contiguous(&desc(4, [(5, 12)])));
    }
}
