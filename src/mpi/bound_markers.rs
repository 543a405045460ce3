//! MPI_LB and MPI_UB, the MPI-1 bound markers (removed in MPI-3; MPICH
//! still has them): predefined types without data or extent. In
//! MPI_Type_create_struct (and MPI_Type_struct) they set the bounds of the
//! new type, as MPICH builds it: the struct of the other members, resized
//! to lower bound = the displacement of the last MPI_LB (else the struct's
//! lower bound) and upper bound = that of the last MPI_UB (else the
//! struct's upper bound). The new type's combiner is therefore
//! MPI_COMBINER_RESIZED, as in MPICH; an upper bound below the lower one
//! gives a negative extent (`{ (LB,10) }` has extent -10, as in MPICH).
use crate::mpi::datatype::Datatype;
use crate::mpi::error::MpiResult;
use crate::mpi::type_contents::TypeRef;
use crate::mpi::typemap::{self, CountArg};
use crate::sys::{self, MPI_Datatype};
use std::sync::Arc;

/// Whether `h` is MPI_LB or MPI_UB.
pub fn is_marker(h: MPI_Datatype) -> bool {
    h == sys::MPI_LB || h == sys::MPI_UB
}

/// MPI_Type_create_struct with bound markers among `types`.
pub fn create_struct<C: CountArg>(
    blocklengths: &[C],
    displacements: &[isize],
    types: &[TypeRef],
) -> MpiResult<Datatype> {
    let (mut bl, mut disps, mut real) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lb, mut ub) = (None, None);
    for ((&b, &d), t) in blocklengths.iter().zip(displacements).zip(types) {
        match t.handle {
            sys::MPI_LB => lb = Some(d),
            sys::MPI_UB => ub = Some(d),
            _ => {
                bl.push(b);
                disps.push(d);
                real.push(t.clone());
            }
        }
    }
    let s = typemap::create_struct(&bl, &disps, &real)?;
    let (lb, ub) = (lb.unwrap_or(s.lb()), ub.unwrap_or(s.ub()));
    let s = TypeRef {
        handle: sys::MPI_DATATYPE_NULL,
        predefined: false,
        ty: Arc::new(s),
    };
    typemap::resized_as::<C>(&s, lb, ub - lb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn markers_set_the_bounds_like_mpich() {
        let t = TypeTable::new();
        let r = |h| t.get_ref(h).unwrap();
        // { (LB, -4), 2 ints at 0, (UB, 20) }
        let s = create_struct(
            &[1, 2, 1],
            &[-4, 0, 20],
            &[r(sys::MPI_LB), r(sys::MPI_INT), r(sys::MPI_UB)],
        )
        .unwrap();
        assert_eq!((s.lb(), s.extent(), s.size()), (-4, 24, 8));
        assert_eq!(s.blocks(), &[(0, 8)]);
        assert_eq!(s.contents().unwrap().combiner, sys::MPI_COMBINER_RESIZED);
        // only an upper bound: the lower bound is the data's
        let s = create_struct(&[1, 1], &[8, 32], &[r(sys::MPI_DOUBLE), r(sys::MPI_UB)]).unwrap();
        assert_eq!((s.lb(), s.extent()), (8, 24));
        // the last marker wins
        let s = create_struct(
            &[1, 1, 1],
            &[0, 16, 4],
            &[r(sys::MPI_INT), r(sys::MPI_UB), r(sys::MPI_UB)],
        )
        .unwrap();
        assert_eq!((s.lb(), s.extent()), (0, 4));
        // { (LB, 10) }: ub 0, extent -10 (MPICH's struct_no_real_types)
        let s = create_struct(&[1], &[10], &[r(sys::MPI_LB)]).unwrap();
        assert_eq!((s.lb(), s.extent(), s.size(), s.ub()), (10, -10, 0, 0));
        // { (LB, 6), 4 bytes at 0, (UB, -3) } (MPICH's lbub_oldapi)
        let s = create_struct(
            &[1, 4, 1],
            &[6, 0, -3],
            &[r(sys::MPI_LB), r(sys::MPI_BYTE), r(sys::MPI_UB)],
        )
        .unwrap();
        assert_eq!((s.lb(), s.extent(), s.size()), (6, -9, 4));
        assert_eq!((s.true_lb(), s.true_extent()), (0, 4));
        let lb = t.get(sys::MPI_LB).unwrap();
        assert_eq!((lb.size(), lb.extent(), lb.name()), (0, 0, "MPI_LB"));
    }
}
