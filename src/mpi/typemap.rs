//! The derived datatype constructors (MPI_Type_contiguous, vector, hvector,
//! indexed, hindexed, indexed_block, hindexed_block, create_struct,
//! create_subarray, create_resized, dup): their argument checks and the
//! type map each builds out of copies of its old types, as the standard
//! defines it (MPI 3.1 section 4.1): bounds from the copies, explicit bounds
//! (resized types) taking precedence, structures padded to the largest
//! alignment of their members when no explicit bound is present (the
//! epsilon rule, as MPICH applies it), and blocks merged where they touch.
//! Every constructor is generic over its count type ([`CountArg`]): `int`
//! for the classic calls, `MPI_Count` for the MPI-4 large-count `_c` ones,
//! whose arguments MPI_Type_get_contents_c returns as large counts.
use crate::mpi::datatype::{merge_runs, Datatype, Layout};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::{Contents, TypeRef};
use crate::sys;
use std::os::raw::c_int;

/// Largest number of blocks (or runs of basic elements) one datatype may
/// hold (16 bytes each).
pub const MAX_BLOCKS: usize = 1 << 26;

/// The integer type of a constructor's counts, block lengths and
/// displacements in elements: `c_int` (the classic calls) or `MPI_Count`
/// (the large-count `_c` calls, [`CountArg::LARGE`]).
pub trait CountArg: Copy + Into<i64> + std::fmt::Display {
    /// Whether the type's contents keep these arguments as large counts
    /// (MPI_Type_get_contents_c's array_of_large_counts).
    const LARGE: bool;
}

impl CountArg for c_int {
    const LARGE: bool = false;
}

impl CountArg for i64 {
    const LARGE: bool = true;
}

/// A count argument: MPI_ERR_COUNT if negative.
pub fn count_arg<C: CountArg>(count: C, what: &str) -> MpiResult<usize> {
    usize::try_from(count.into()).or_else(|_| {
        fail(
            sys::MPI_ERR_COUNT,
            format!("invalid {what} {count} (negative)"),
        )
    })
}

/// A block length: MPI_ERR_ARG if negative (as MPICH).
fn blocklen_arg<C: CountArg>(bl: C, what: &str) -> MpiResult<usize> {
    usize::try_from(bl.into())
        .or_else(|_| fail(sys::MPI_ERR_ARG, format!("invalid {what} {bl} (negative)")))
}

/// A count or displacement in elements as a displacement factor.
fn elems<C: CountArg>(v: C) -> MpiResult<isize> {
    isize::try_from(v.into()).map_or_else(|_| overflow(), Ok)
}

/// The number of dimensions of a subarray: MPI_ERR_ARG unless positive.
pub fn ndims_arg(ndims: c_int) -> MpiResult<usize> {
    match usize::try_from(ndims) {
        Ok(n) if n > 0 => Ok(n),
        _ => fail(
            sys::MPI_ERR_ARG,
            format!("invalid ndims {ndims} (must be positive)"),
        ),
    }
}

fn overflow<T>() -> MpiResult<T> {
    fail(
        sys::MPI_ERR_ARG,
        "datatype displacements overflow the address space",
    )
}

/// `disp + j * step`, checked.
fn at(disp: isize, j: usize, step: isize) -> MpiResult<isize> {
    isize::try_from(j)
        .ok()
        .and_then(|j| j.checked_mul(step))
        .and_then(|o| o.checked_add(disp))
        .map_or_else(overflow, Ok)
}

fn too_big<T>() -> MpiResult<T> {
    fail(
        sys::MPI_ERR_NO_MEM,
        format!("datatype too large: its type map would have more than {MAX_BLOCKS} blocks"),
    )
}

/// How the bounds of a new type are set.
enum Bounds {
    /// From its copies; `pad`: round the extent up to the alignment
    /// (structures without explicit bounds).
    Natural { pad: bool },
    /// Explicit markers at lb and lb + extent.
    Explicit { lb: isize, extent: isize },
}

/// A type map under construction: copies of old types appended in order.
#[derive(Default)]
struct Builder {
    blocks: Vec<(isize, usize)>,
    runs: Vec<(usize, u64)>,
    /// Bounds of copies without explicit markers.
    lb: Option<isize>,
    ub: Option<isize>,
    /// Explicit bounds of copies that have them.
    slb: Option<isize>,
    sub: Option<isize>,
    /// The basic type of the copies so far (see [`Datatype::basic`]).
    basic: Basic,
}

/// The basic type of a type map under construction.
#[derive(Default, Clone, Copy)]
enum Basic {
    /// No basic element yet.
    #[default]
    None,
    /// Every basic element so far is a copy of this predefined type.
    One(sys::MPI_Datatype),
    /// Elements of different types (or of a type without a basic type).
    Mixed,
}

fn min_in(slot: &mut Option<isize>, v: isize) {
    *slot = Some(slot.map_or(v, |s| s.min(v)));
}

fn max_in(slot: &mut Option<isize>, v: isize) {
    *slot = Some(slot.map_or(v, |s| s.max(v)));
}

impl Builder {
    fn push_block(&mut self, off: isize, len: usize) {
        match self.blocks.last_mut() {
            Some(last) if last.0 + last.1 as isize == off => last.1 += len,
            _ => self.blocks.push((off, len)),
        }
    }

    fn push_run(&mut self, size: usize, n: u64) {
        match self.runs.last_mut() {
            Some(last) if last.0 == size => last.1 += n,
            _ => self.runs.push((size, n)),
        }
    }

    /// `n` consecutive copies of `old`, the first at displacement `disp`
    /// bytes (a block of `n` elements).
    fn copies(&mut self, old: &Datatype, disp: isize, n: usize) -> MpiResult<()> {
        if n == 0 || old.is_empty_map() {
            return Ok(());
        }
        let ext = old.extent();
        let last = at(disp, n - 1, ext)?;
        // with a negative extent the last copy is the lowest one
        let (lo, hi) = (disp.min(last), disp.max(last));
        let lb = lo.checked_add(old.lb()).map_or_else(overflow, Ok)?;
        let ub = hi.checked_add(old.ub()).map_or_else(overflow, Ok)?;
        if old.sticky_lb() {
            min_in(&mut self.slb, lb);
        } else {
            min_in(&mut self.lb, lb);
        }
        if old.sticky_ub() {
            max_in(&mut self.sub, ub);
        } else {
            max_in(&mut self.ub, ub);
        }
        if old.size() == 0 {
            return Ok(());
        }
        self.basic = match (self.basic, old.basic()) {
            (Basic::None, Some(t)) => Basic::One(t),
            (Basic::One(a), Some(t)) if a == t => Basic::One(a),
            _ => Basic::Mixed,
        };
        if old.is_dense() {
            let len = n.checked_mul(old.size()).map_or_else(overflow, Ok)?;
            self.push_block(disp + old.origin(), len);
        } else {
            let k = old.blocks().len();
            if n.saturating_mul(k).saturating_add(self.blocks.len()) > MAX_BLOCKS {
                return too_big();
            }
            for j in 0..n {
                let base = at(disp, j, ext)? + old.origin();
                for &(o, len) in old.blocks() {
                    self.push_block(base + o as isize, len);
                }
            }
        }
        match old.runs() {
            &[(s, k)] => self.push_run(s, k * n as u64),
            runs => {
                if n.saturating_mul(runs.len()).saturating_add(self.runs.len()) > MAX_BLOCKS {
                    return too_big();
                }
                for _ in 0..n {
                    for &(s, k) in runs {
                        self.push_run(s, k);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(self, bounds: Bounds, align: usize, contents: Contents) -> MpiResult<Datatype> {
        let (lb, ub, sticky_lb, sticky_ub) = match bounds {
            Bounds::Explicit { lb, extent } => {
                let ub = lb.checked_add(extent).map_or_else(overflow, Ok)?;
                (lb, ub, true, true)
            }
            Bounds::Natural { pad } => {
                let lb = self.slb.or(self.lb).unwrap_or(0);
                let mut ub = self.sub.or(self.ub).unwrap_or(0);
                let explicit = self.slb.is_some() || self.sub.is_some();
                if pad && !explicit && align > 1 {
                    let eps = (ub - lb).rem_euclid(align as isize);
                    if eps != 0 {
                        ub += align as isize - eps;
                    }
                }
                (lb, ub, self.slb.is_some(), self.sub.is_some())
            }
        };
        let layout = Layout {
            blocks: self.blocks,
            lb,
            // negative when ub < lb (allowed, as in MPICH)
            extent: ub.checked_sub(lb).map_or_else(overflow, Ok)?,
            sticky_lb,
            sticky_ub,
            align,
            runs: merge_runs(&self.runs),
        };
        let mut t = Datatype::from_layout("", layout, contents);
        t.set_basic(match self.basic {
            Basic::One(b) => Some(b),
            Basic::None | Basic::Mixed => None,
        });
        Ok(t)
    }
}

/// The contents of a constructor call whose integer arguments are `ints`
/// and address arguments `aints`: a large-count call keeps both, in that
/// order, as large counts (as MPICH does).
fn contents<C: CountArg>(
    combiner: c_int,
    ints: Vec<i64>,
    aints: Vec<isize>,
    types: Vec<TypeRef>,
) -> Contents {
    if C::LARGE {
        let counts = ints.into_iter().chain(aints.iter().map(|&a| a as i64));
        return Contents {
            combiner,
            ints: vec![],
            aints: vec![],
            counts: counts.collect(),
            types,
        };
    }
    Contents {
        combiner,
        // the values of int arguments (and array lengths that fit an int)
        ints: ints.into_iter().map(|v| v as c_int).collect(),
        aints,
        counts: vec![],
        types,
    }
}

/// `n` as a count for the contents.
fn len(n: usize) -> i64 {
    n as i64
}

/// Integer arguments as i64.
fn wide<C: CountArg>(a: &[C]) -> impl Iterator<Item = i64> + '_ {
    a.iter().map(|&v| v.into())
}

/// Extent of `old` as a displacement unit.
fn unit(old: &Datatype) -> MpiResult<isize> {
    Ok(old.extent())
}

/// MPI_Type_contiguous.
pub fn contiguous<C: CountArg>(count: C, old: &TypeRef) -> MpiResult<Datatype> {
    let n = count_arg(count, "count")?;
    let mut b = Builder::default();
    b.copies(&old.ty, 0, n)?;
    let c = contents::<C>(
        sys::MPI_COMBINER_CONTIGUOUS,
        vec![count.into()],
        vec![],
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// Blocks of `bl` elements at displacements `disps` (bytes), in order.
fn blocks_at(
    old: &Datatype,
    bl: impl Iterator<Item = MpiResult<usize>>,
    disps: impl Iterator<Item = MpiResult<isize>>,
) -> MpiResult<Builder> {
    let mut b = Builder::default();
    for (n, d) in bl.zip(disps) {
        b.copies(old, d?, n?)?;
    }
    Ok(b)
}

/// MPI_Type_vector: `stride` in elements of `old`.
pub fn vector<C: CountArg>(
    count: C,
    blocklength: C,
    stride: C,
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let n = count_arg(count, "count")?;
    let bl = blocklen_arg(blocklength, "blocklength")?;
    let step = elems(stride)?
        .checked_mul(unit(&old.ty)?)
        .map_or_else(overflow, Ok)?;
    let b = blocks_at(
        &old.ty,
        (0..n).map(|_| Ok(bl)),
        (0..n).map(|i| at(0, i, step)),
    )?;
    let c = contents::<C>(
        sys::MPI_COMBINER_VECTOR,
        vec![count.into(), blocklength.into(), stride.into()],
        vec![],
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// MPI_Type_create_hvector / MPI_Type_hvector: `stride` in bytes.
pub fn hvector<C: CountArg>(
    count: C,
    blocklength: C,
    stride: isize,
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let n = count_arg(count, "count")?;
    let bl = blocklen_arg(blocklength, "blocklength")?;
    let b = blocks_at(
        &old.ty,
        (0..n).map(|_| Ok(bl)),
        (0..n).map(|i| at(0, i, stride)),
    )?;
    let c = contents::<C>(
        sys::MPI_COMBINER_HVECTOR,
        vec![count.into(), blocklength.into()],
        vec![stride],
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

fn blocklens<C: CountArg>(bls: &[C]) -> impl Iterator<Item = MpiResult<usize>> + '_ {
    bls.iter()
        .enumerate()
        .map(|(i, &b)| blocklen_arg(b, &format!("array_of_blocklengths[{i}]")))
}

/// MPI_Type_indexed: displacements in elements of `old`.
pub fn indexed<C: CountArg>(
    blocklengths: &[C],
    displacements: &[C],
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let u = unit(&old.ty)?;
    let b = blocks_at(
        &old.ty,
        blocklens(blocklengths),
        displacements
            .iter()
            .map(|&d| u.checked_mul(elems(d)?).map_or_else(overflow, Ok)),
    )?;
    let mut ints = vec![len(blocklengths.len())];
    ints.extend(wide(blocklengths));
    ints.extend(wide(displacements));
    let c = contents::<C>(sys::MPI_COMBINER_INDEXED, ints, vec![], vec![old.clone()]);
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// MPI_Type_create_hindexed / MPI_Type_hindexed: displacements in bytes.
pub fn hindexed<C: CountArg>(
    blocklengths: &[C],
    displacements: &[isize],
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let b = blocks_at(
        &old.ty,
        blocklens(blocklengths),
        displacements.iter().map(|&d| Ok(d)),
    )?;
    let mut ints = vec![len(blocklengths.len())];
    ints.extend(wide(blocklengths));
    let c = contents::<C>(
        sys::MPI_COMBINER_HINDEXED,
        ints,
        displacements.to_vec(),
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// MPI_Type_create_indexed_block: displacements in elements of `old`.
pub fn indexed_block<C: CountArg>(
    blocklength: C,
    displacements: &[C],
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let bl = blocklen_arg(blocklength, "blocklength")?;
    let u = unit(&old.ty)?;
    let b = blocks_at(
        &old.ty,
        displacements.iter().map(|_| Ok(bl)),
        displacements
            .iter()
            .map(|&d| u.checked_mul(elems(d)?).map_or_else(overflow, Ok)),
    )?;
    let mut ints = vec![len(displacements.len()), blocklength.into()];
    ints.extend(wide(displacements));
    let c = contents::<C>(
        sys::MPI_COMBINER_INDEXED_BLOCK,
        ints,
        vec![],
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// MPI_Type_create_hindexed_block: displacements in bytes.
pub fn hindexed_block<C: CountArg>(
    blocklength: C,
    displacements: &[isize],
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let bl = blocklen_arg(blocklength, "blocklength")?;
    let b = blocks_at(
        &old.ty,
        displacements.iter().map(|_| Ok(bl)),
        displacements.iter().map(|&d| Ok(d)),
    )?;
    let c = contents::<C>(
        sys::MPI_COMBINER_HINDEXED_BLOCK,
        vec![len(displacements.len()), blocklength.into()],
        displacements.to_vec(),
        vec![old.clone()],
    );
    b.finish(Bounds::Natural { pad: false }, old.ty.align(), c)
}

/// MPI_Type_create_struct / MPI_Type_struct: displacements in bytes; the
/// extent is padded to the largest member alignment unless a member has
/// explicit bounds.
pub fn create_struct<C: CountArg>(
    blocklengths: &[C],
    displacements: &[isize],
    types: &[TypeRef],
) -> MpiResult<Datatype> {
    let mut b = Builder::default();
    for (i, ((&bl, &d), t)) in blocklengths
        .iter()
        .zip(displacements)
        .zip(types)
        .enumerate()
    {
        let n = blocklen_arg(bl, &format!("array_of_blocklengths[{i}]"))?;
        b.copies(&t.ty, d, n)?;
    }
    let align = types.iter().map(|t| t.ty.align()).max().unwrap_or(1);
    let mut ints = vec![len(blocklengths.len())];
    ints.extend(wide(blocklengths));
    let c = contents::<C>(
        sys::MPI_COMBINER_STRUCT,
        ints,
        displacements.to_vec(),
        types.to_vec(),
    );
    b.finish(Bounds::Natural { pad: true }, align, c)
}

/// MPI_Type_create_subarray: the `subsizes` block starting at `starts` of
/// an array of `sizes` elements of `old` in C (row-major) or Fortran
/// (column-major) order; its bounds are those of the whole array.
pub fn subarray<C: CountArg>(
    sizes: &[C],
    subsizes: &[C],
    starts: &[C],
    order: c_int,
    old: &TypeRef,
) -> MpiResult<Datatype> {
    let nd = sizes.len();
    let (sizes, subsizes, starts): (Vec<i64>, Vec<i64>, Vec<i64>) = (
        wide(sizes).collect(),
        wide(subsizes).collect(),
        wide(starts).collect(),
    );
    for d in 0..nd {
        let (size, sub, start) = (sizes[d], subsizes[d], starts[d]);
        if size <= 0 {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid array_of_sizes[{d}] = {size} (must be positive)"),
            );
        }
        if sub < 0 || sub > size {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid array_of_subsizes[{d}] = {sub} (must be in 0..={size})"),
            );
        }
        if start < 0 || start > size - sub {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "invalid array_of_starts[{d}] = {start} (must be in 0..={} for a \
                     subsize of {sub} in a size of {size})",
                    size - sub
                ),
            );
        }
    }
    // dimensions from the slowest-varying to the fastest
    let dims: Vec<usize> = match order {
        sys::MPI_ORDER_C => (0..nd).collect(),
        sys::MPI_ORDER_FORTRAN => (0..nd).rev().collect(),
        _ => {
            return fail(
                sys::MPI_ERR_ARG,
                format!("invalid order {order} (MPI_ORDER_C or MPI_ORDER_FORTRAN)"),
            )
        }
    };
    let u = unit(&old.ty)?;
    // byte stride of each dimension, in `dims` order
    let mut stride = vec![0isize; nd];
    let mut acc = u;
    for k in (0..nd).rev() {
        stride[k] = acc;
        acc = acc
            .checked_mul(sizes[dims[k]] as isize)
            .map_or_else(overflow, Ok)?;
    }
    let total = acc;
    let mut b = Builder::default();
    if subsizes.iter().all(|&s| s > 0) {
        let inner = dims[nd - 1];
        let mut idx = vec![0usize; nd - 1];
        'outer: loop {
            let mut disp = 0isize;
            for k in 0..nd - 1 {
                disp += (starts[dims[k]] as isize + idx[k] as isize) * stride[k];
            }
            disp += starts[inner] as isize * stride[nd - 1];
            b.copies(&old.ty, disp, subsizes[inner] as usize)?;
            // next index, odometer style (last outer dimension fastest)
            let mut k = nd - 1;
            loop {
                if k == 0 {
                    break 'outer;
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < subsizes[dims[k]] as usize {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
    let arrays = sizes.iter().chain(&subsizes).chain(&starts).copied();
    let c = if C::LARGE {
        // ndims and order stay ints (as in MPICH)
        Contents {
            combiner: sys::MPI_COMBINER_SUBARRAY,
            ints: vec![nd as c_int, order],
            aints: vec![],
            counts: arrays.collect(),
            types: vec![old.clone()],
        }
    } else {
        let mut ints = vec![len(nd)];
        ints.extend(arrays);
        ints.push(order.into());
        contents::<C>(sys::MPI_COMBINER_SUBARRAY, ints, vec![], vec![old.clone()])
    };
    b.finish(
        Bounds::Explicit {
            lb: 0,
            extent: total,
        },
        old.ty.align(),
        c,
    )
}

/// MPI_Type_create_resized: the data of `old` with explicit bounds lb and
/// lb + extent (a negative extent puts ub below lb, as the standard allows).
pub fn resized(old: &TypeRef, lb: isize, extent: isize) -> MpiResult<Datatype> {
    resized_as::<c_int>(old, lb, extent)
}

/// MPI_Type_create_resized (`C` = `c_int`) or MPI_Type_create_resized_c
/// (`C` = `MPI_Count`: lb and extent are large counts in the contents).
pub fn resized_as<C: CountArg>(old: &TypeRef, lb: isize, extent: isize) -> MpiResult<Datatype> {
    let mut b = Builder::default();
    b.copies(&old.ty, 0, 1)?;
    let c = contents::<C>(
        sys::MPI_COMBINER_RESIZED,
        vec![],
        vec![lb, extent],
        vec![old.clone()],
    );
    b.finish(Bounds::Explicit { lb, extent }, old.ty.align(), c)
}

/// MPI_Type_dup: the same type map.
pub fn dup(old: &TypeRef) -> Datatype {
    let c = contents::<c_int>(sys::MPI_COMBINER_DUP, vec![], vec![], vec![old.clone()]);
    old.ty.duplicate(c)
}

#[cfg(test)]
#[path = "typemap_tests.rs"]
mod tests;
