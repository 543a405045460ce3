//! Cartesian topologies: the grid attached to a communicator (dims,
//! periods, this process's coordinates), rank <-> coordinates, shifts, the
//! colors and keys of MPI_Cart_sub, and MPI_Dims_create with the balanced
//! factorization MPICH uses (after Traeff and Luebbe, "Specification
//! Guideline Violations by MPI_Dims_create", EuroMPI'15): the same results
//! as MPICH, ties included.
use crate::mpi::error::{fail, MpiResult};
use crate::sys;
use std::os::raw::c_int;

/// A Cartesian grid; ranks are laid out in row-major order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cart {
    pub dims: Vec<c_int>,
    pub periods: Vec<bool>,
    /// This process's coordinates.
    pub coords: Vec<c_int>,
}

/// Check the dims of MPI_Cart_create against a communicator of `size`
/// ranks: the number of grid points.
pub fn check_grid(ndims: c_int, dims: &[c_int], size: u32) -> MpiResult<u32> {
    if ndims < 0 {
        return fail(
            sys::MPI_ERR_DIMS,
            format!("invalid ndims {ndims} (negative)"),
        );
    }
    let mut n: u64 = 1;
    for (i, &d) in dims.iter().enumerate() {
        if d <= 0 {
            return fail(
                sys::MPI_ERR_DIMS,
                format!("dims[{i}] = {d}: every dimension must be positive"),
            );
        }
        n = n.saturating_mul(d as u64);
    }
    if n > size as u64 {
        // MPICH: MPI_ERR_ARG (there is no topology yet)
        return fail(
            sys::MPI_ERR_ARG,
            format!("the grid has {n} points but the communicator only {size} ranks"),
        );
    }
    Ok(n as u32)
}

impl Cart {
    /// The grid as seen by grid rank `rank`.
    pub fn new(dims: Vec<c_int>, periods: Vec<bool>, rank: u32) -> Cart {
        let coords = coords_in(&dims, rank);
        Cart {
            dims,
            periods,
            coords,
        }
    }

    pub fn ndims(&self) -> usize {
        self.dims.len()
    }

    /// Grid points.
    pub fn nnodes(&self) -> u32 {
        self.dims.iter().map(|&d| d as u32).product()
    }

    /// MPI_Cart_coords.
    pub fn coords_of(&self, rank: c_int, maxdims: c_int) -> MpiResult<Vec<c_int>> {
        let n = self.nnodes();
        let Some(r) = u32::try_from(rank).ok().filter(|&r| r < n) else {
            return fail(
                sys::MPI_ERR_RANK,
                format!("invalid rank {rank} (the grid has {n} ranks)"),
            );
        };
        self.check_maxdims(maxdims)?;
        Ok(coords_in(&self.dims, r))
    }

    /// MPI_Cart_get and MPI_Cart_coords: the caller's arrays must hold
    /// ndims entries.
    pub fn check_maxdims(&self, maxdims: c_int) -> MpiResult<()> {
        if maxdims < self.ndims() as c_int {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "maxdims {maxdims} is less than the {} dimensions of the grid",
                    self.ndims()
                ),
            );
        }
        Ok(())
    }

    /// MPI_Cart_rank: periodic coordinates wrap around; out of range in a
    /// non-periodic dimension is an error (MPI_ERR_ARG, as in MPICH).
    pub fn rank_of(&self, coords: &[c_int]) -> MpiResult<c_int> {
        let mut rank: i64 = 0;
        for (i, (&c, &d)) in coords.iter().zip(&self.dims).enumerate() {
            let c = if self.periods[i] {
                c.rem_euclid(d)
            } else if (0..d).contains(&c) {
                c
            } else {
                return fail(
                    sys::MPI_ERR_ARG,
                    format!(
                        "coords[{i}] = {c} is out of range 0..={} in a non-periodic dimension",
                        d - 1
                    ),
                );
            };
            rank = rank * d as i64 + c as i64;
        }
        Ok(rank as c_int)
    }

    /// MPI_Cart_shift: (source, dest) for this process, MPI_PROC_NULL past
    /// the edge of a non-periodic dimension.
    pub fn shift(&self, direction: c_int, disp: c_int, my_rank: u32) -> MpiResult<(c_int, c_int)> {
        if self.ndims() == 0 {
            return fail(
                sys::MPI_ERR_TOPOLOGY,
                "MPI_Cart_shift on a zero-dimensional grid",
            );
        }
        let Some(dir) = usize::try_from(direction)
            .ok()
            .filter(|&d| d < self.ndims())
        else {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "invalid direction {direction} (the grid has {} dimensions)",
                    self.ndims()
                ),
            );
        };
        if disp == 0 {
            return Ok((my_rank as c_int, my_rank as c_int));
        }
        let at = |delta: i64| -> c_int {
            let mut pos = self.coords.clone();
            let p = pos[dir] as i64 + delta;
            let d = self.dims[dir] as i64;
            if !self.periods[dir] && !(0..d).contains(&p) {
                return sys::MPI_PROC_NULL;
            }
            pos[dir] = p.rem_euclid(d) as c_int;
            self.rank_of(&pos).expect("in range")
        };
        Ok((at(-(disp as i64)), at(disp as i64)))
    }

    /// MPI_Cart_sub: (color, key, sub-grid dims, sub-grid periods) of this
    /// process, as MPICH computes them (the split keeps row-major order).
    pub fn sub(&self, remain: &[bool]) -> (c_int, c_int, Vec<c_int>, Vec<bool>) {
        debug_assert_eq!(remain.len(), self.ndims());
        let (mut color, mut key) = (0, 0);
        let (mut dims, mut periods) = (Vec::new(), Vec::new());
        for (i, &keep) in remain.iter().enumerate().take(self.ndims()) {
            if keep {
                key = key * self.dims[i] + self.coords[i];
                dims.push(self.dims[i]);
                periods.push(self.periods[i]);
            } else {
                color = color * self.dims[i] + self.coords[i];
            }
        }
        (color, key, dims, periods)
    }
}

/// Row-major coordinates of `rank` in a grid of `dims`.
fn coords_in(dims: &[c_int], rank: u32) -> Vec<c_int> {
    let mut n: u32 = dims.iter().map(|&d| d as u32).product();
    let mut r = rank;
    dims.iter()
        .map(|&d| {
            n /= d as u32;
            let c = r / n;
            r %= n;
            c as c_int
        })
        .collect()
}

/// Most dimensions MPI_Dims_create fills (MPICH's MAX_DIMS).
const MAX_FREE_DIMS: usize = 20;

/// MPI_Dims_create: fill the zero entries of `dims` so that the product of
/// all entries is `nnodes`, as balanced as possible, non-increasing.
pub fn dims_create(nnodes: c_int, dims: &mut [c_int]) -> MpiResult<()> {
    if nnodes < 0 {
        return fail(
            sys::MPI_ERR_ARG,
            format!("invalid nnodes {nnodes} (negative)"),
        );
    }
    let mut fixed: i64 = 1;
    let mut free = 0;
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 {
            return fail(sys::MPI_ERR_DIMS, format!("dims[{i}] = {d} (negative)"));
        }
        if d == 0 {
            free += 1;
        } else {
            fixed *= d as i64;
        }
    }
    if nnodes as i64 % fixed != 0 {
        return fail(
            sys::MPI_ERR_DIMS,
            format!("nnodes {nnodes} is not a multiple of the product {fixed} of the given dims"),
        );
    }
    if free == 0 {
        return Ok(());
    }
    if free > MAX_FREE_DIMS {
        return fail(
            sys::MPI_ERR_DIMS,
            format!("{free} dimensions to fill (at most {MAX_FREE_DIMS})"),
        );
    }
    let n = (nnodes as i64 / fixed) as u64;
    if n == 0 {
        return fail(
            sys::MPI_ERR_ARG,
            "nnodes is 0: no grid of positive dimensions has 0 points",
        );
    }
    let chosen = balanced(n, free);
    let mut it = chosen.into_iter();
    for d in dims.iter_mut().filter(|d| **d == 0) {
        *d = it.next().expect("one value per free dimension") as c_int;
    }
    Ok(())
}

/// Prime factors of n with multiplicities, increasing.
fn factor(mut n: u64) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    let mut p = 2;
    while p * p <= n {
        let mut cnt = 0;
        while n.is_multiple_of(p) {
            n /= p;
            cnt += 1;
        }
        if cnt > 0 {
            out.push((p, cnt));
        }
        p += if p == 2 { 1 } else { 2 };
    }
    if n > 1 {
        out.push((n, 1));
    }
    out
}

/// `nd` factors of `n`, non-increasing, as balanced as MPICH makes them.
fn balanced(mut n: u64, nd: usize) -> Vec<u64> {
    if nd == 1 {
        return vec![n];
    }
    let mut f = factor(n);
    let mut nprimes: u32 = f.iter().map(|x| x.1).sum();
    // A prime occurring once and larger than the square root of what is
    // left must be a dimension of its own: take those first (never the
    // smallest prime factor, and leave at least one dimension).
    let mut chosen: Vec<u64> = Vec::with_capacity(nd);
    while f.len() > 1 && chosen.len() < nd - 1 {
        let &(p, cnt) = f.last().expect("non-empty");
        if cnt == 1 && p * p > n {
            chosen.push(p);
            f.pop();
            n /= p;
            nprimes -= 1;
        } else {
            break;
        }
    }
    let left = nd - chosen.len();
    // Few enough primes: one per dimension, largest first, then 1s.
    if chosen.len() + nprimes as usize <= nd {
        for &(p, cnt) in f.iter().rev() {
            chosen.extend(std::iter::repeat_n(p, cnt as usize));
        }
        chosen.resize(nd, 1);
        return chosen;
    }
    if left == 1 {
        chosen.push(n);
        return chosen;
    }
    // A power of a single prime: deal its copies round robin.
    if f.len() == 1 {
        let (p, cnt) = f[0];
        let start = chosen.len();
        chosen.resize(nd, 1);
        for j in 0..cnt as usize {
            chosen[start + j % left] *= p;
        }
        return chosen;
    }
    // Every multiplicity divisible by the dimensions left: all equal.
    if f.iter()
        .all(|&(_, cnt)| (cnt as usize).is_multiple_of(left))
    {
        let v: u64 = f.iter().map(|&(p, cnt)| p.pow(cnt / left as u32)).product();
        chosen.resize(nd, v);
        return chosen;
    }
    // General case: a first guess, then the search for the best balance.
    let mut divs: Vec<u64> = divisors(&f)
        .into_iter()
        .filter(|&d| d != 1 && d != n)
        .collect();
    divs.sort_unstable();
    let start = chosen.len();
    chosen.extend(first_guess(&f, left));
    let mut s = Search {
        nd: left,
        trydims: vec![0; left],
        best: chosen[start..].to_vec(),
        // The balance of the whole guess, as MPICH computes it.
        bal: chosen[0] as i64 - chosen[nd - 1] as i64,
    };
    s.trydims[left - 1] = divs[0];
    s.optimize(n, left - 1, &divs);
    chosen.truncate(start);
    chosen.extend(s.best);
    chosen
}

/// Every divisor of the number factored as `f`.
fn divisors(f: &[(u64, u32)]) -> Vec<u64> {
    let mut out = vec![1u64];
    for &(p, cnt) in f {
        let mut next = Vec::with_capacity(out.len() * (cnt as usize + 1));
        for &d in &out {
            let mut x = d;
            for _ in 0..=cnt {
                next.push(x);
                x *= p;
            }
        }
        out = next;
    }
    out
}

/// MPICH's first guess (a modified round robin): the largest primes first,
/// one per dimension; each further prime multiplies the last dimension
/// that stays no larger than the one before it (else the first).
fn first_guess(f: &[(u64, u32)], nd: usize) -> Vec<u64> {
    let mut dims = vec![1u64; nd];
    let mut k = 0;
    for &(p, cnt) in f.iter().rev() {
        for _ in 0..cnt {
            if k < nd {
                dims[k] = p;
                k += 1;
            } else {
                let mut at = nd - 1;
                while at > 0 && dims[at] * p > dims[at - 1] {
                    at -= 1;
                }
                dims[at] *= p;
            }
        }
    }
    dims
}

/// The search of MPICH's `optbalance`: dims are chosen from the last (the
/// smallest) to the first; a candidate replaces the best one when its
/// balance (largest - smallest) is no worse, and branches that cannot beat
/// the balance known when the level began are cut.
struct Search {
    nd: usize,
    /// The dims tried so far (positions idx+1..nd are set).
    trydims: Vec<u64>,
    best: Vec<u64>,
    bal: i64,
}

impl Search {
    /// Choose dims[0..=idx] with product `n` from `divs` (sorted divisors
    /// of n, none below the dims chosen after idx).
    fn optimize(&mut self, n: u64, idx: usize, divs: &[u64]) {
        let min = self.trydims[self.nd - 1] as i64;
        let bal_at_entry = self.bal;
        let inner = idx < self.nd - 1;
        if idx == 0 {
            if n as i64 - min <= bal_at_entry {
                self.best[1..].copy_from_slice(&self.trydims[1..]);
                self.best[0] = n;
                self.bal = n as i64 - min;
            }
            return;
        }
        if idx == 1 {
            // The pair (q, f), q * f = n, q >= f, with f the largest such
            // divisor in divs (divs[0] at least).
            let mut k = 1;
            while k < divs.len() && n / divs[k] >= divs[k] {
                k += 1;
            }
            let f = divs[k - 1];
            let q = n / f;
            if q < f {
                return;
            }
            let test = if self.nd == 2 {
                q as i64 - f as i64
            } else {
                q as i64 - min
            };
            if test <= bal_at_entry {
                self.best[2..].copy_from_slice(&self.trydims[2..]);
                self.best[0] = q;
                self.best[1] = f;
                self.bal = q as i64 - min;
            }
            return;
        }
        for (k, &f) in divs.iter().enumerate() {
            if inner && f as i64 - min > bal_at_entry {
                break;
            }
            let q = n / f;
            let mut next: Vec<u64> = Vec::new();
            let sf = if q.is_multiple_of(f) {
                next.push(f);
                f
            } else if k + 1 < divs.len() {
                divs[k + 1]
            } else {
                break;
            };
            if inner && sf as i64 - min > bal_at_entry {
                break;
            }
            // idx more dims, each at least sf, must fit into q.
            let mut ff = sf as u128 * sf as u128;
            let mut more = idx - 1;
            while more > 0 && ff <= q as u128 {
                ff *= sf as u128;
                more -= 1;
            }
            if more > 0 {
                break;
            }
            self.trydims[idx] = f;
            for &g in &divs[k + 1..] {
                if g as u128 * g as u128 > q as u128 {
                    break;
                }
                if q.is_multiple_of(g) {
                    next.push(g);
                }
            }
            if !next.is_empty() {
                self.optimize(q, idx - 1, &next);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dc(n: c_int, dims: &[c_int]) -> Vec<c_int> {
        let mut d = dims.to_vec();
        dims_create(n, &mut d).unwrap();
        d
    }

    #[test]
    fn dims_create_cases() {
        assert_eq!(dc(16, &[0, 0]), [4, 4]);
        assert_eq!(dc(12, &[0, 0, 0]), [3, 2, 2]);
        assert_eq!(dc(7, &[0, 0]), [7, 1]);
        assert_eq!(dc(6, &[0, 0]), [3, 2]);
        assert_eq!(dc(6, &[0, 3, 0]), [2, 3, 1]);
        assert_eq!(dc(24, &[0, 0, 0]), [4, 3, 2]);
        assert_eq!(dc(64, &[0, 0, 0]), [4, 4, 4]);
        assert_eq!(dc(100, &[0, 0, 0]), [5, 5, 4]);
        assert_eq!(dc(1, &[0, 0, 0]), [1, 1, 1]);
        assert_eq!(dc(20, &[0, 0, 0, 0]), [5, 2, 2, 1]);
        assert_eq!(dc(1024, &[0, 0]), [32, 32]);
        assert_eq!(dc(1000, &[0, 0, 0]), [10, 10, 10]);
        assert_eq!(dc(36, &[0, 0]), [6, 6]);
        assert_eq!(dc(44, &[0, 0, 0]), [11, 2, 2]);
        assert_eq!(dc(8, &[2, 0, 0]), [2, 2, 2]);
        assert_eq!(dc(4, &[2, 2]), [2, 2]);
        assert_eq!(dc(0, &[]), Vec::<c_int>::new());
    }

    #[test]
    fn dims_create_errors() {
        let mut d = [0, 3, 0];
        let e = dims_create(7, &mut d).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_DIMS);
        assert_eq!(
            e.msg,
            "nnodes 7 is not a multiple of the product 3 of the given dims"
        );
        assert_eq!(
            dims_create(4, &mut [0, -1]).unwrap_err().class,
            sys::MPI_ERR_DIMS
        );
        assert_eq!(
            dims_create(-4, &mut [0]).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
    }

    /// Exhaustive check on small cases: every result multiplies to n, is
    /// non-increasing and reaches the best balance (largest - smallest)
    /// there is.
    #[test]
    fn dims_create_is_balanced() {
        fn best(n: u64, k: usize, max: u64) -> Option<i64> {
            // min over non-increasing factorizations of (first - last)
            fn go(n: u64, k: usize, max: u64, first: u64, acc: &mut Option<i64>) {
                if k == 1 {
                    if n <= max {
                        let b = first as i64 - n as i64;
                        *acc = Some(acc.map_or(b, |a| a.min(b)));
                    }
                    return;
                }
                for d in (1..=max.min(n)).rev() {
                    if n.is_multiple_of(d) {
                        go(n / d, k - 1, d, first, acc);
                    }
                }
            }
            let mut acc = None;
            for d in (1..=max.min(n)).rev() {
                if n.is_multiple_of(d) {
                    go(n / d, k - 1, d, d, &mut acc);
                }
            }
            acc
        }
        for k in 2..=4 {
            for n in 1..=400u64 {
                let mut d = vec![0; k];
                dims_create(n as c_int, &mut d).unwrap();
                assert_eq!(
                    d.iter().map(|&x| x as u64).product::<u64>(),
                    n,
                    "{n} {k}: {d:?}"
                );
                assert!(d.windows(2).all(|w| w[0] >= w[1]), "{n} {k}: {d:?}");
                let bal = (d[0] - d[k - 1]) as i64;
                let want = best(n, k, n).unwrap();
                assert!(bal == want, "{n} {k}: {d:?} balance {bal}, best {want}");
            }
        }
    }

    #[test]
    fn cart_coords_rank_shift() {
        // 3 x 4, periodic in the second dimension
        let c = Cart::new(vec![3, 4], vec![false, true], 6);
        assert_eq!(c.coords, [1, 2]);
        assert_eq!(c.nnodes(), 12);
        assert_eq!(c.coords_of(11, 2).unwrap(), [2, 3]);
        assert_eq!(c.coords_of(12, 2).unwrap_err().class, sys::MPI_ERR_RANK);
        assert_eq!(c.coords_of(1, 1).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(c.rank_of(&[2, 3]).unwrap(), 11);
        assert_eq!(c.rank_of(&[2, -1]).unwrap(), 11);
        assert_eq!(c.rank_of(&[0, 9]).unwrap(), 1);
        let e = c.rank_of(&[3, 0]).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            e.msg,
            "coords[0] = 3 is out of range 0..=2 in a non-periodic dimension"
        );
        assert_eq!(c.shift(0, 1, 6).unwrap(), (2, 10));
        assert_eq!(
            c.shift(0, 2, 6).unwrap(),
            (sys::MPI_PROC_NULL, sys::MPI_PROC_NULL)
        );
        assert_eq!(c.shift(1, 1, 6).unwrap(), (5, 7));
        assert_eq!(c.shift(1, -3, 6).unwrap(), (5, 7));
        assert_eq!(c.shift(1, 0, 6).unwrap(), (6, 6));
        assert_eq!(c.shift(2, 1, 6).unwrap_err().class, sys::MPI_ERR_ARG);
        assert_eq!(c.shift(-1, 1, 6).unwrap_err().class, sys::MPI_ERR_ARG);
        let z = Cart::new(vec![], vec![], 0);
        assert_eq!(z.shift(0, 1, 0).unwrap_err().class, sys::MPI_ERR_TOPOLOGY);
    }

    #[test]
    fn cart_sub_colors() {
        // 2 x 3 x 4 at (1, 2, 3) = rank 23
        let c = Cart::new(vec![2, 3, 4], vec![true, false, true], 23);
        assert_eq!(c.coords, [1, 2, 3]);
        let (color, key, dims, periods) = c.sub(&[false, true, true]);
        assert_eq!((color, key), (1, 2 * 4 + 3));
        assert_eq!((dims, periods), (vec![3, 4], vec![false, true]));
        let (color, key, dims, _) = c.sub(&[true, false, false]);
        assert_eq!((color, key, dims), (2 * 4 + 3, 1, vec![2]));
    }

    #[test]
    fn grid_checks() {
        assert_eq!(check_grid(2, &[3, 4], 12).unwrap(), 12);
        assert_eq!(check_grid(2, &[3, 4], 13).unwrap(), 12);
        assert_eq!(
            check_grid(2, &[3, 4], 11).unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        assert_eq!(
            check_grid(1, &[0], 11).unwrap_err().class,
            sys::MPI_ERR_DIMS
        );
        assert_eq!(
            check_grid(-1, &[], 11).unwrap_err().class,
            sys::MPI_ERR_DIMS
        );
        assert_eq!(check_grid(0, &[], 1).unwrap(), 1);
    }
}
