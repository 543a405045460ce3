//! Arguments of the collective calls: checking them (with the error class
//! MPI gives each mistake) and describing the user's buffers as blocks of
//! elements, which join user memory to the packed bytes the algorithms of
//! `crate::coll` work on.
use crate::mpi::backend::Backend;
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiError, MpiResult};
use crate::mpi::World;
use crate::sys::{self, MPI_Comm, MPI_Datatype};
use std::os::raw::c_int;
use std::sync::Arc;

/// The communicator of a collective call, as `crate::coll::Comm` wants it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CollComm {
    /// World rank of each communicator rank.
    pub ranks: Vec<u32>,
    /// My rank in the communicator.
    pub me: usize,
    /// Its point-to-point context id.
    pub ctx: u32,
}

impl CollComm {
    /// The intracommunicator behind `comm`; MPI_ERR_COMM for an invalid
    /// one or an intercommunicator (whose collectives go through
    /// `mpi::inter_coll_calls`).
    pub fn of<E: Backend>(w: &World<E>, comm: MPI_Comm) -> MpiResult<CollComm> {
        let c = w.comms.get(comm)?;
        crate::mpi::intercomm::intra_only(c)?;
        let ranks = (0..c.size())
            .map(|r| c.group.world_rank(r).expect("rank of the group"))
            .collect();
        Ok(CollComm {
            ranks,
            me: c.my_rank as usize,
            ctx: c.ctx,
        })
    }

    pub fn size(&self) -> usize {
        self.ranks.len()
    }
}

/// A run of `count` elements of `ty` starting `off` bytes from a user
/// buffer's address.
#[derive(Debug, Clone)]
pub struct Block {
    pub off: isize,
    pub count: usize,
    pub ty: Arc<Datatype>,
}

impl Block {
    /// Packed bytes of the block.
    pub fn bytes(&self) -> usize {
        self.ty.packed_size(self.count)
    }
}

/// One block at the buffer's address (a plain `buf, count, datatype`).
pub fn whole(count: usize, ty: &Arc<Datatype>) -> Vec<Block> {
    vec![Block {
        off: 0,
        count,
        ty: ty.clone(),
    }]
}

/// `n` blocks of `count` elements, block i at `i * count * extent` (the
/// receive buffer of Gather / Allgather, the send buffer of Scatter, both of
/// Alltoall).
pub fn consecutive(n: usize, count: usize, ty: &Arc<Datatype>) -> Vec<Block> {
    (0..n)
        .map(|i| Block {
            off: (i * count) as isize * ty.extent(),
            count,
            ty: ty.clone(),
        })
        .collect()
}

/// Block i of `counts[i]` elements at `displs[i] * extent` (the
/// v-variants; displacements are `int`s, or `MPI_Aint`s in the large-count
/// `_c` calls).
pub fn displaced<D: Copy + Into<i64>>(
    counts: &[usize],
    displs: &[D],
    ty: &Arc<Datatype>,
) -> Vec<Block> {
    counts
        .iter()
        .zip(displs)
        .map(|(&count, &d)| Block {
            off: (d.into() as isize).wrapping_mul(ty.extent()),
            count,
            ty: ty.clone(),
        })
        .collect()
}

/// Block i of `counts[i]` elements of `types[i]` at `displs[i]` bytes
/// (MPI_Alltoallw).
pub fn displaced_bytes(counts: &[usize], displs: &[c_int], types: &[Arc<Datatype>]) -> Vec<Block> {
    counts
        .iter()
        .zip(displs)
        .zip(types)
        .map(|((&count, &d), ty)| Block {
            off: d as isize,
            count,
            ty: ty.clone(),
        })
        .collect()
}

/// Byte counts and displacements of `blocks` packed back to back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    pub counts: Vec<usize>,
    pub displs: Vec<usize>,
}

impl Packed {
    pub fn of(blocks: &[Block]) -> Packed {
        let counts: Vec<usize> = blocks.iter().map(Block::bytes).collect();
        let mut displs = Vec::with_capacity(counts.len());
        let mut at = 0;
        for c in &counts {
            displs.push(at);
            at += c;
        }
        Packed { counts, displs }
    }

    pub fn total(&self) -> usize {
        self.counts.iter().sum()
    }

    pub fn layout(&self) -> crate::coll::Layout<'_> {
        crate::coll::Layout {
            counts: &self.counts,
            displs: &self.displs,
        }
    }
}

/// A user buffer, read and written as packed blocks (implemented over raw
/// memory by `crate::abi`).
pub trait UserBuf {
    /// The packed bytes of `blocks`, one after the other.
    fn pack(&self, blocks: &[Block]) -> Vec<u8>;
    /// Scatter `data` (packed blocks one after the other) into `blocks`.
    fn unpack(&mut self, blocks: &[Block], data: &[u8]);
}

/// Prefix `what: ` to an error's message.
fn named(what: &str) -> impl Fn(MpiError) -> MpiError + '_ {
    move |mut e| {
        e.msg = format!("{what}: {}", e.msg);
        e
    }
}

/// A count argument (`int`, or `MPI_Count` in the large-count `_c` calls):
/// MPI_ERR_COUNT if negative.
pub fn count<C: Copy + Into<i64>>(n: C, what: &str) -> MpiResult<usize> {
    let n: i64 = n.into();
    usize::try_from(n)
        .or_else(|_| fail(sys::MPI_ERR_COUNT, format!("invalid {what} {n} (negative)")))
}

/// The sum of `counts` (elements of a whole v-buffer): MPI_ERR_COUNT when
/// it overflows.
pub fn total(counts: &[usize], what: &str) -> MpiResult<usize> {
    counts
        .iter()
        .try_fold(0usize, |a, &c| a.checked_add(c))
        .map_or_else(
            || {
                fail(
                    sys::MPI_ERR_COUNT,
                    format!("the {what} add up to more than the address space"),
                )
            },
            Ok,
        )
}

/// An array of counts: MPI_ERR_COUNT naming the first negative entry.
pub fn counts<C: Copy + Into<i64>>(a: &[C], what: &str) -> MpiResult<Vec<usize>> {
    a.iter()
        .enumerate()
        .map(|(i, &n)| count(n, &format!("{what}[{i}]")))
        .collect()
}

/// A datatype argument: MPI_ERR_TYPE for a null, unknown or freed one.
pub fn datatype<E: Backend>(
    w: &World<E>,
    dt: MPI_Datatype,
    what: &str,
) -> MpiResult<Arc<Datatype>> {
    w.types.get(dt).map_err(named(what))
}

/// A root argument: MPI_ERR_ROOT unless 0 <= root < size.
pub fn root(root: c_int, size: usize) -> MpiResult<usize> {
    match usize::try_from(root) {
        Ok(r) if r < size => Ok(r),
        _ => fail(
            sys::MPI_ERR_ROOT,
            format!("invalid root {root} (communicator size {size})"),
        ),
    }
}

/// A buffer argument: MPI_ERR_BUFFER when null but holding data.
pub fn buffer(is_null: bool, count: usize, ty: &Datatype, what: &str) -> MpiResult<()> {
    ty.check_count(count).map_err(named(what))?;
    if is_null && count > 0 && ty.size() > 0 {
        return fail(
            sys::MPI_ERR_BUFFER,
            format!("{what} is null but holds {count} elements of {}", ty.name()),
        );
    }
    Ok(())
}

/// The whole buffer of `procs` blocks of `count` elements each (MPI_Gather's
/// receive buffer, MPI_Alltoall's buffers and the like): MPI_ERR_COUNT when
/// it holds more elements or bytes than the address space.
pub fn blocks(count: usize, procs: usize, ty: &Datatype, what: &str) -> MpiResult<()> {
    let Some(n) = count.checked_mul(procs) else {
        return fail(
            sys::MPI_ERR_COUNT,
            format!("{what}: {procs} blocks of {count} elements are more than the address space"),
        );
    };
    ty.check_count(n).map_err(named(what))
}

/// MPI_IN_PLACE where the call does not allow it (MPI_ERR_BUFFER).
pub fn no_in_place(what: &str, rule: &str) -> MpiResult<()> {
    fail(
        sys::MPI_ERR_BUFFER,
        format!("MPI_IN_PLACE as {what}: {rule}"),
    )
}

/// The same address as send and receive buffer (MPI_ERR_BUFFER: the
/// standard forbids aliased arguments; MPI_IN_PLACE is the way).
pub fn not_aliased(send: usize, recv: usize, bytes: usize) -> MpiResult<()> {
    if send == recv && send != 0 && bytes > 0 {
        return fail(
            sys::MPI_ERR_BUFFER,
            "sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)",
        );
    }
    Ok(())
}

/// What a rank sends to itself (or, at the root, its own block) must be
/// exactly what it receives from itself: MPI requires equal type signatures.
/// MPI_ERR_TRUNCATE when it is longer, MPI_ERR_COUNT when shorter.
pub fn matching(sent: usize, room: usize, what: &str) -> MpiResult<()> {
    if sent == room {
        return Ok(());
    }
    let class = if sent > room {
        sys::MPI_ERR_TRUNCATE
    } else {
        sys::MPI_ERR_COUNT
    };
    fail(
        class,
        format!(
            "{what}: this rank sends itself {sent} bytes but its receive block holds {room} \
             (the send and receive type signatures must match)"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::datatype::TypeTable;

    #[test]
    fn block_layouts() {
        let t = TypeTable::new();
        let si = t.get(sys::MPI_SHORT_INT).unwrap(); // size 6, extent 8
        let c = consecutive(3, 2, &si);
        assert_eq!(c.iter().map(|b| b.off).collect::<Vec<_>>(), vec![0, 16, 32]);
        let d = displaced(&[1, 0, 3], &[5, -1, 0], &si);
        assert_eq!(d.iter().map(|b| b.off).collect::<Vec<_>>(), vec![40, -8, 0]);
        let p = Packed::of(&d);
        assert_eq!(p.counts, vec![6, 0, 18]);
        assert_eq!(p.displs, vec![0, 6, 6]);
        assert_eq!(p.total(), 24);
        let int = t.get(sys::MPI_INT).unwrap();
        let w = displaced_bytes(&[2, 1], &[3, 100], &[int.clone(), si.clone()]);
        assert_eq!(
            w.iter().map(|b| (b.off, b.bytes())).collect::<Vec<_>>(),
            vec![(3, 8), (100, 6)]
        );
        assert_eq!(whole(4, &int)[0].bytes(), 16);
    }

    #[test]
    fn argument_errors() {
        let e = count(-4, "recvcount").unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (sys::MPI_ERR_COUNT, "invalid recvcount -4 (negative)")
        );
        let e = counts(&[1, 0, -2], "sendcounts").unwrap_err();
        assert_eq!(e.msg, "invalid sendcounts[2] -2 (negative)");
        assert_eq!(counts(&[3, 0], "x").unwrap(), vec![3, 0]);
        assert_eq!(root(3, 4).unwrap(), 3);
        for r in [4, -1, sys::MPI_ROOT] {
            let e = root(r, 4).unwrap_err();
            assert_eq!(e.class, sys::MPI_ERR_ROOT);
        }
        assert_eq!(
            root(9, 4).unwrap_err().msg,
            "invalid root 9 (communicator size 4)"
        );
        let t = TypeTable::new();
        let int = t.get(sys::MPI_INT).unwrap();
        assert!(blocks(1 << 20, 4, &int, "recvbuf").is_ok());
        // each block fits, the whole does not
        let e = blocks(1 << 61, 2, &int, "recvbuf").unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_COUNT);
        assert!(e.msg.starts_with("recvbuf: "), "{}", e.msg);
        let e = blocks(usize::MAX / 2, 3, &int, "sendbuf").unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_COUNT);
        assert!(buffer(true, 0, &int, "recvbuf").is_ok());
        assert!(buffer(false, 5, &int, "recvbuf").is_ok());
        let e = buffer(true, 5, &int, "recvbuf").unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_BUFFER,
                "recvbuf is null but holds 5 elements of MPI_INT"
            )
        );
        assert_eq!(
            not_aliased(64, 64, 4).unwrap_err().class,
            sys::MPI_ERR_BUFFER
        );
        assert!(not_aliased(64, 64, 0).is_ok());
        assert!(not_aliased(64, 68, 4).is_ok());
        assert!(matching(8, 8, "x").is_ok());
        assert_eq!(
            matching(9, 8, "x").unwrap_err().class,
            sys::MPI_ERR_TRUNCATE
        );
        assert_eq!(matching(7, 8, "x").unwrap_err().class, sys::MPI_ERR_COUNT);
        let e = no_in_place("sendbuf", "only the root may pass it").unwrap_err();
        assert_eq!(e.msg, "MPI_IN_PLACE as sendbuf: only the root may pass it");
    }
}
