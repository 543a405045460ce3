//! Groups: the set operations of MPI (incl, excl, ranges, union,
//! intersection, difference), rank translation and comparison, with MPICH's
//! argument checks and error classes, and the table of group handles
//! (MPI_GROUP_EMPTY predefined; empty results are MPI_GROUP_EMPTY).
use crate::mpi::comm::Group;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Group};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

/// MPI_IDENT / MPI_SIMILAR / MPI_UNEQUAL of two member lists.
pub fn compare(a: &Group, b: &Group) -> c_int {
    if a.ranks() == b.ranks() {
        return sys::MPI_IDENT;
    }
    let mut x = a.ranks().to_vec();
    let mut y = b.ranks().to_vec();
    x.sort_unstable();
    y.sort_unstable();
    if x == y {
        sys::MPI_SIMILAR
    } else {
        sys::MPI_UNEQUAL
    }
}

fn check_n(n: c_int) -> MpiResult<usize> {
    usize::try_from(n).or_else(|_| fail(sys::MPI_ERR_ARG, format!("invalid n {n} (negative)")))
}

/// Group ranks checked as MPICH does (MPIR_Group_check_valid_ranks): each in
/// range, none twice.
fn valid_ranks(g: &Group, ranks: &[c_int]) -> MpiResult<Vec<usize>> {
    let size = g.size() as usize;
    let mut seen = vec![false; size];
    let mut out = Vec::with_capacity(ranks.len());
    for (i, &r) in ranks.iter().enumerate() {
        let Some(u) = usize::try_from(r).ok().filter(|&u| u < size) else {
            return fail(
                sys::MPI_ERR_RANK,
                format!("ranks[{i}] = {r} is not a rank of the group (size {size})"),
            );
        };
        if seen[u] {
            return fail(
                sys::MPI_ERR_RANK,
                format!("ranks[{i}] = {r} appears more than once"),
            );
        }
        seen[u] = true;
        out.push(u);
    }
    Ok(out)
}

/// The ranks named by (first, last, stride) triplets, checked as MPICH does
/// (MPIR_Group_check_valid_ranges), in order.
fn range_ranks(g: &Group, ranges: &[[c_int; 3]]) -> MpiResult<Vec<usize>> {
    let size = g.size() as i64;
    let mut seen = vec![false; size as usize];
    let mut out = Vec::new();
    for (i, &[first, last, stride]) in ranges.iter().enumerate() {
        let (f, l, s) = (first as i64, last as i64, stride as i64);
        if f < 0 || f >= size {
            return fail(
                sys::MPI_ERR_RANK,
                format!("ranges[{i}]: first rank {first} is not in the group (size {size})"),
            );
        }
        if s == 0 {
            return fail(sys::MPI_ERR_ARG, format!("ranges[{i}]: stride is 0"));
        }
        if l < 0 || l >= size {
            return fail(
                sys::MPI_ERR_RANK,
                format!("ranges[{i}]: last rank {last} is not in the group (size {size})"),
            );
        }
        if (s > 0 && f > l) || (s < 0 && f < l) {
            return fail(
                sys::MPI_ERR_ARG,
                format!("ranges[{i}] = ({first}, {last}, {stride}): the stride points away from the last rank"),
            );
        }
        let mut r = f;
        while (s > 0 && r <= l) || (s < 0 && r >= l) {
            if seen[r as usize] {
                return fail(
                    sys::MPI_ERR_RANK,
                    format!("ranges[{i}]: rank {r} is named more than once"),
                );
            }
            seen[r as usize] = true;
            out.push(r as usize);
            r += s;
        }
    }
    Ok(out)
}

impl Group {
    /// The members at positions `pos`, in that order.
    fn pick(&self, pos: impl IntoIterator<Item = usize>) -> Group {
        Group::new(pos.into_iter().map(|p| self.ranks()[p]).collect())
    }

    /// The members not at positions `pos`, in group order.
    fn without(&self, pos: &[usize]) -> Group {
        let mut drop = vec![false; self.size() as usize];
        for &p in pos {
            drop[p] = true;
        }
        self.pick((0..drop.len()).filter(|&p| !drop[p]))
    }

    /// MPI_Group_incl.
    pub fn incl(&self, n: c_int, ranks: &[c_int]) -> MpiResult<Group> {
        check_n(n)?;
        Ok(self.pick(valid_ranks(self, ranks)?))
    }

    /// MPI_Group_excl.
    pub fn excl(&self, n: c_int, ranks: &[c_int]) -> MpiResult<Group> {
        check_n(n)?;
        Ok(self.without(&valid_ranks(self, ranks)?))
    }

    /// MPI_Group_range_incl.
    pub fn range_incl(&self, n: c_int, ranges: &[[c_int; 3]]) -> MpiResult<Group> {
        check_n(n)?;
        Ok(self.pick(range_ranks(self, ranges)?))
    }

    /// MPI_Group_range_excl.
    pub fn range_excl(&self, n: c_int, ranges: &[[c_int; 3]]) -> MpiResult<Group> {
        check_n(n)?;
        Ok(self.without(&range_ranks(self, ranges)?))
    }

    /// MPI_Group_union: my members, then those of `other` not in me.
    pub fn union(&self, other: &Group) -> Group {
        let mut v = self.ranks().to_vec();
        v.extend(other.ranks().iter().filter(|&&w| self.rank_of(w).is_none()));
        Group::new(v)
    }

    /// MPI_Group_intersection: my members that are in `other`, in my order.
    pub fn intersection(&self, other: &Group) -> Group {
        Group::new(
            self.ranks()
                .iter()
                .copied()
                .filter(|&w| other.rank_of(w).is_some())
                .collect(),
        )
    }

    /// MPI_Group_difference: my members not in `other`, in my order.
    pub fn difference(&self, other: &Group) -> Group {
        Group::new(
            self.ranks()
                .iter()
                .copied()
                .filter(|&w| other.rank_of(w).is_none())
                .collect(),
        )
    }

    /// MPI_Group_translate_ranks: the rank in `other` of each of my ranks
    /// (MPI_UNDEFINED if absent, MPI_PROC_NULL stays MPI_PROC_NULL).
    pub fn translate(&self, ranks: &[c_int], other: &Group) -> MpiResult<Vec<c_int>> {
        let size = self.size();
        ranks
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                if r == sys::MPI_PROC_NULL {
                    return Ok(sys::MPI_PROC_NULL);
                }
                match u32::try_from(r).ok().and_then(|u| self.world_rank(u)) {
                    Some(w) => Ok(other.rank_of(w).map_or(sys::MPI_UNDEFINED, |x| x as c_int)),
                    None => fail(
                        sys::MPI_ERR_RANK,
                        format!("ranks1[{i}] = {r} is not a rank of group1 (size {size})"),
                    ),
                }
            })
            .collect()
    }
}

/// Derived groups get handles from this base up.
const FIRST_GROUP_HANDLE: MPI_Group = 0x88000000u32 as MPI_Group;

/// Group handles -> groups.
#[derive(Debug, Clone)]
pub struct GroupTable {
    map: HashMap<MPI_Group, Arc<Group>>,
    next: MPI_Group,
}

impl Default for GroupTable {
    fn default() -> Self {
        let mut map = HashMap::new();
        map.insert(sys::MPI_GROUP_EMPTY, Arc::new(Group::new(Vec::new())));
        GroupTable {
            map,
            next: FIRST_GROUP_HANDLE,
        }
    }
}

impl GroupTable {
    /// The group behind `h`; MPI_ERR_GROUP for a null or unknown one.
    pub fn get(&self, h: MPI_Group) -> MpiResult<Arc<Group>> {
        match self.map.get(&h) {
            Some(g) => Ok(g.clone()),
            None if h == sys::MPI_GROUP_NULL => {
                fail(sys::MPI_ERR_GROUP, "MPI_GROUP_NULL is not a valid group")
            }
            None => fail(sys::MPI_ERR_GROUP, format!("invalid group handle {h:#x}")),
        }
    }

    /// A handle for `g` (MPI_GROUP_EMPTY when it has no member).
    pub fn insert(&mut self, g: Arc<Group>) -> MPI_Group {
        if g.size() == 0 {
            return sys::MPI_GROUP_EMPTY;
        }
        let h = self.next;
        self.next += 1;
        self.map.insert(h, g);
        h
    }

    /// MPI_Group_free: MPI_GROUP_EMPTY may be "freed" (the handle is only
    /// cleared, as in MPICH); other predefined handles may not.
    pub fn free(&mut self, h: MPI_Group) -> MpiResult<()> {
        if h == sys::MPI_GROUP_EMPTY {
            return Ok(());
        }
        self.get(h)?;
        self.map.remove(&h);
        Ok(())
    }

    /// Number of live derived groups (tests).
    pub fn live(&self) -> usize {
        self.map.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(v: &[u32]) -> Group {
        Group::new(v.to_vec())
    }

    #[test]
    fn incl_excl() {
        let a = g(&[10, 11, 12, 13, 14]);
        assert_eq!(a.incl(3, &[4, 0, 2]).unwrap(), g(&[14, 10, 12]));
        assert_eq!(a.incl(0, &[]).unwrap(), g(&[]));
        assert_eq!(a.excl(2, &[3, 0]).unwrap(), g(&[11, 12, 14]));
        let e = a.incl(2, &[1, 1]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RANK);
        assert_eq!(e.msg, "ranks[1] = 1 appears more than once");
        let e = a.excl(1, &[5]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RANK);
        assert_eq!(e.msg, "ranks[0] = 5 is not a rank of the group (size 5)");
        assert_eq!(a.incl(-1, &[]).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(a.excl(1, &[-1]).unwrap_err().class, sys::MPI_ERR_RANK);
    }

    #[test]
    fn ranges() {
        let a = g(&(0..10).map(|x| x + 100).collect::<Vec<_>>());
        let r = a.range_incl(2, &[[0, 6, 3], [9, 7, -1]]).unwrap();
        assert_eq!(r, g(&[100, 103, 106, 109, 108, 107]));
        let r = a.range_excl(1, &[[1, 9, 2]]).unwrap();
        assert_eq!(r, g(&[100, 102, 104, 106, 108]));
        // a single rank, stride irrelevant
        assert_eq!(a.range_incl(1, &[[4, 4, -5]]).unwrap(), g(&[104]));
        let e = a.range_incl(1, &[[0, 5, 0]]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        let e = a.range_incl(1, &[[5, 0, 1]]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        let e = a.range_incl(1, &[[0, 10, 1]]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_RANK);
        let e = a.range_incl(2, &[[0, 4, 2], [4, 5, 1]]).unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_RANK,
                "ranges[1]: rank 4 is named more than once"
            )
        );
    }

    #[test]
    fn set_operations() {
        let a = g(&[1, 3, 5, 7]);
        let b = g(&[7, 6, 5, 4]);
        assert_eq!(a.union(&b), g(&[1, 3, 5, 7, 6, 4]));
        assert_eq!(a.intersection(&b), g(&[5, 7]));
        assert_eq!(b.intersection(&a), g(&[7, 5]));
        assert_eq!(a.difference(&b), g(&[1, 3]));
        assert_eq!(b.difference(&a), g(&[6, 4]));
        assert_eq!(a.difference(&a), g(&[]));
    }

    #[test]
    fn translate_and_compare() {
        let a = g(&[1, 3, 5, 7]);
        let b = g(&[7, 6, 5, 4]);
        assert_eq!(
            a.translate(&[0, 1, 2, 3, sys::MPI_PROC_NULL], &b).unwrap(),
            vec![
                sys::MPI_UNDEFINED,
                sys::MPI_UNDEFINED,
                2,
                0,
                sys::MPI_PROC_NULL
            ]
        );
        assert_eq!(a.translate(&[4], &b).unwrap_err().class, sys::MPI_ERR_RANK);
        assert_eq!(compare(&a, &a.clone()), sys::MPI_IDENT);
        assert_eq!(compare(&a, &g(&[7, 5, 3, 1])), sys::MPI_SIMILAR);
        assert_eq!(compare(&a, &b), sys::MPI_UNEQUAL);
        assert_eq!(compare(&a, &g(&[1, 3, 5])), sys::MPI_UNEQUAL);
    }

    #[test]
    fn table() {
        let mut t = GroupTable::default();
        assert_eq!(t.get(sys::MPI_GROUP_EMPTY).unwrap().size(), 0);
        assert_eq!(t.insert(Arc::new(g(&[]))), sys::MPI_GROUP_EMPTY);
        let h = t.insert(Arc::new(g(&[2, 0])));
        assert_eq!(h, FIRST_GROUP_HANDLE);
        assert_eq!(t.get(h).unwrap().ranks(), &[2, 0]);
        assert_eq!(t.live(), 1);
        t.free(h).unwrap();
        assert_eq!(t.live(), 0);
        let e = t.get(h).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_GROUP);
        assert_eq!(t.free(h).unwrap_err().class, sys::MPI_ERR_GROUP);
        t.free(sys::MPI_GROUP_EMPTY).unwrap();
        assert_eq!(
            t.get(sys::MPI_GROUP_NULL).unwrap_err().msg,
            "MPI_GROUP_NULL is not a valid group"
        );
    }
}
