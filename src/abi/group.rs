//! Groups: MPI_Group_size / rank / incl / excl / range_incl / range_excl /
//! union / intersection / difference / translate_ranks / compare / free.
//! Errors go to MPI_COMM_WORLD's handler (groups belong to no communicator).
use crate::abi::buffers::{input, out, put_int_at};
use crate::abi::state::call;
use crate::mpi::comm::Group;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::group;
use crate::mpi::World;
use crate::sys::{self, MPI_Group};
use std::os::raw::c_int;
use std::sync::Arc;

/// An input array of `n` entries (empty for n <= 0).
///
/// # Safety
/// `p` is null or points to `n` readable entries valid for `'a`.
pub(crate) unsafe fn array<'a, T>(p: *const T, n: c_int, what: &str) -> MpiResult<&'a [T]> {
    let len = usize::try_from(n).unwrap_or(0);
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null and, by the contract, valid for len entries.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Register the result of a group operation and store its handle.
///
/// # Safety
/// `newgroup` is null or valid for a write.
unsafe fn put_group(w: &mut World, newgroup: *mut MPI_Group, g: Group) -> MpiResult<()> {
    // SAFETY: forwarded contract.
    let o = unsafe { out(newgroup, "newgroup") }?;
    *o = w.comms.groups.insert(Arc::new(g));
    Ok(())
}

mpi_fn! {
    fn MPI_Group_size / PMPI_Group_size(group: MPI_Group, size: *mut c_int) -> c_int {
        call("MPI_Group_size", sys::MPI_COMM_WORLD, |w| {
            let n = w.comms.groups.get(group)?.size() as c_int;
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(size, "size") }? = n;
            Ok(())
        })
    }
}

mpi_fn! {
    /// MPI_UNDEFINED when the calling process is not a member.
    fn MPI_Group_rank / PMPI_Group_rank(group: MPI_Group, rank: *mut c_int) -> c_int {
        call("MPI_Group_rank", sys::MPI_COMM_WORLD, |w| {
            let g = w.comms.groups.get(group)?;
            let r = g.rank_of(w.rank()).map_or(sys::MPI_UNDEFINED, |r| r as c_int);
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(rank, "rank") }? = r;
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Group_incl / PMPI_Group_incl(group: MPI_Group, n: c_int, ranks: *const c_int, newgroup: *mut MPI_Group) -> c_int {
        call("MPI_Group_incl", sys::MPI_COMM_WORLD, |w| {
            let g = w.comms.groups.get(group)?;
            // SAFETY: n ints at ranks (caller).
            let r = unsafe { array(ranks, n, "ranks") }?;
            let ng = g.incl(n, r)?;
            // SAFETY: null or a valid handle pointer (caller).
            unsafe { put_group(w, newgroup, ng) }
        })
    }
}

mpi_fn! {
    fn MPI_Group_excl / PMPI_Group_excl(group: MPI_Group, n: c_int, ranks: *const c_int, newgroup: *mut MPI_Group) -> c_int {
        call("MPI_Group_excl", sys::MPI_COMM_WORLD, |w| {
            let g = w.comms.groups.get(group)?;
            // SAFETY: n ints at ranks (caller).
            let r = unsafe { array(ranks, n, "ranks") }?;
            let ng = g.excl(n, r)?;
            // SAFETY: null or a valid handle pointer (caller).
            unsafe { put_group(w, newgroup, ng) }
        })
    }
}

mpi_fn! {
    fn MPI_Group_range_incl / PMPI_Group_range_incl(group: MPI_Group, n: c_int, ranges: *mut [c_int; 3], newgroup: *mut MPI_Group) -> c_int {
        call("MPI_Group_range_incl", sys::MPI_COMM_WORLD, |w| {
            let g = w.comms.groups.get(group)?;
            // SAFETY: n triplets at ranges (caller).
            let r = unsafe { array(ranges, n, "ranges") }?;
            let ng = g.range_incl(n, r)?;
            // SAFETY: null or a valid handle pointer (caller).
            unsafe { put_group(w, newgroup, ng) }
        })
    }
}

mpi_fn! {
    fn MPI_Group_range_excl / PMPI_Group_range_excl(group: MPI_Group, n: c_int, ranges: *mut [c_int; 3], newgroup: *mut MPI_Group) -> c_int {
        call("MPI_Group_range_excl", sys::MPI_COMM_WORLD, |w| {
            let g = w.comms.groups.get(group)?;
            // SAFETY: n triplets at ranges (caller).
            let r = unsafe { array(ranges, n, "ranges") }?;
            let ng = g.range_excl(n, r)?;
            // SAFETY: null or a valid handle pointer (caller).
            unsafe { put_group(w, newgroup, ng) }
        })
    }
}

/// A binary group operation.
///
/// # Safety
/// `newgroup` is null or valid for a write.
unsafe fn binary(
    name: &str,
    g1: MPI_Group,
    g2: MPI_Group,
    newgroup: *mut MPI_Group,
    op: fn(&Group, &Group) -> Group,
) -> c_int {
    call(name, sys::MPI_COMM_WORLD, |w| {
        let (a, b) = (w.comms.groups.get(g1)?, w.comms.groups.get(g2)?);
        let ng = op(&a, &b);
        // SAFETY: forwarded contract.
        unsafe { put_group(w, newgroup, ng) }
    })
}

mpi_fn! {
    fn MPI_Group_union / PMPI_Group_union(group1: MPI_Group, group2: MPI_Group, newgroup: *mut MPI_Group) -> c_int {
        // SAFETY: forwarded contract.
        unsafe { binary("MPI_Group_union", group1, group2, newgroup, Group::union) }
    }
}

mpi_fn! {
    fn MPI_Group_intersection / PMPI_Group_intersection(group1: MPI_Group, group2: MPI_Group, newgroup: *mut MPI_Group) -> c_int {
        // SAFETY: forwarded contract.
        unsafe { binary("MPI_Group_intersection", group1, group2, newgroup, Group::intersection) }
    }
}

mpi_fn! {
    fn MPI_Group_difference / PMPI_Group_difference(group1: MPI_Group, group2: MPI_Group, newgroup: *mut MPI_Group) -> c_int {
        // SAFETY: forwarded contract.
        unsafe { binary("MPI_Group_difference", group1, group2, newgroup, Group::difference) }
    }
}

mpi_fn! {
    fn MPI_Group_translate_ranks / PMPI_Group_translate_ranks(
        group1: MPI_Group,
        n: c_int,
        ranks1: *const c_int,
        group2: MPI_Group,
        ranks2: *mut c_int,
    ) -> c_int {
        call("MPI_Group_translate_ranks", sys::MPI_COMM_WORLD, |w| {
            let (a, b) = (w.comms.groups.get(group1)?, w.comms.groups.get(group2)?);
            if n < 0 {
                return fail(sys::MPI_ERR_ARG, format!("invalid n {n} (negative)"));
            }
            // SAFETY: n ints at ranks1 (caller).
            let r = unsafe { array(ranks1, n, "ranks1") }?;
            let t = a.translate(r, &b)?;
            if n > 0 && ranks2.is_null() {
                return fail(sys::MPI_ERR_ARG, "null pointer passed as ranks2");
            }
            for (i, v) in t.into_iter().enumerate() {
                // SAFETY: ranks2 has room for n ints (caller).
                unsafe { put_int_at(ranks2, i, v) };
            }
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Group_compare / PMPI_Group_compare(group1: MPI_Group, group2: MPI_Group, result: *mut c_int) -> c_int {
        call("MPI_Group_compare", sys::MPI_COMM_WORLD, |w| {
            let (a, b) = (w.comms.groups.get(group1)?, w.comms.groups.get(group2)?);
            // SAFETY: null or a valid int pointer (caller).
            *unsafe { out(result, "result") }? = group::compare(&a, &b);
            Ok(())
        })
    }
}

mpi_fn! {
    fn MPI_Group_free / PMPI_Group_free(group: *mut MPI_Group) -> c_int {
        call("MPI_Group_free", sys::MPI_COMM_WORLD, |w| {
            // SAFETY: null or a valid handle pointer (caller).
            let h = unsafe { input(group, "group") }?;
            w.comms.groups.free(*h)?;
            // SAFETY: read above, so valid for writing too (caller's contract).
            unsafe { group.write(sys::MPI_GROUP_NULL) };
            Ok(())
        })
    }
}
