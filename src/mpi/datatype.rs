//! Datatypes: the layout of one element (byte blocks in type-map order,
//! bounds, extent, the basic elements it is made of), the layouts of the
//! predefined datatypes of mpi.h, and pack / unpack between user memory and
//! the packed bytes that travel on the wire. Derived layouts are built in
//! `crate::mpi::typemap`; handles live in the [`TypeTable`].
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::type_contents::Contents;
use crate::sys;

pub use crate::mpi::dtype_table::TypeTable;

/// The memory layout of one element. Bytes `[off, off + len)` of each block,
/// counted from [`Datatype::origin`] (the true lower bound: 0 for every
/// predefined type), hold data, in type-map order (the order in which they
/// are packed); adjacent blocks in that order are merged. Element `i` of a
/// buffer starts `i * extent` bytes after the buffer pointer; the extent may
/// be negative (ub < lb, as the standard allows): then element `i` lies
/// before element 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datatype {
    name: String,
    blocks: Vec<(usize, usize)>,
    /// Offset of the first data byte from the buffer pointer (true lb).
    origin: isize,
    /// End of the furthest block, from `origin` (the true extent).
    reach: usize,
    /// ub - lb: negative when the upper bound is below the lower one.
    extent: isize,
    size: usize,
    lb: isize,
    /// Explicit lower / upper bound markers (MPI_Type_create_resized): they
    /// decide the bounds of the types built from this one.
    sticky_lb: bool,
    sticky_ub: bool,
    /// Alignment used to pad structures (the epsilon of the standard).
    align: usize,
    /// The basic elements of one element in packed order, as
    /// (element size, number of consecutive elements of that size).
    runs: Vec<(usize, u64)>,
    /// MPI_Get_elements returns MPI_UNDEFINED for a byte count that is not
    /// a whole number of elements (predefined types but the C pair structs).
    whole_only: bool,
    /// The one predefined type all basic elements of this type are copies
    /// of (a predefined type is its own; the pair types count as basic),
    /// or None for a heterogeneous type: what predefined reduction
    /// operators apply to (MPICH's "homogeneous" derived types).
    basic: Option<sys::MPI_Datatype>,
    contents: Option<Box<Contents>>,
}

/// Everything a derived layout is made of (see `crate::mpi::typemap`).
#[derive(Debug, Clone)]
pub struct Layout {
    /// (displacement from the buffer pointer, length), type-map order.
    pub blocks: Vec<(isize, usize)>,
    pub lb: isize,
    pub extent: isize,
    pub sticky_lb: bool,
    pub sticky_ub: bool,
    pub align: usize,
    pub runs: Vec<(usize, u64)>,
}

impl Datatype {
    /// A type made of `blocks` (offset, length) within an element of `extent`
    /// bytes, in any order (they are sorted); its basic elements are bytes.
    /// Panics on overlapping or out-of-extent blocks (a programming error in
    /// whoever builds the type).
    pub fn new(name: &str, blocks: &[(usize, usize)], extent: usize) -> Datatype {
        let mut sorted: Vec<(usize, usize)> = blocks.iter().copied().filter(|b| b.1 > 0).collect();
        sorted.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(sorted.len());
        for (off, len) in sorted {
            assert!(off + len <= extent, "{name}: block beyond the extent");
            match merged.last_mut() {
                Some(last) if last.0 + last.1 == off => last.1 += len,
                Some(last) => {
                    assert!(last.0 + last.1 < off, "{name}: overlapping blocks");
                    merged.push((off, len));
                }
                None => merged.push((off, len)),
            }
        }
        let size: usize = merged.iter().map(|b| b.1).sum();
        let origin = merged.first().map_or(0, |b| b.0);
        let blocks: Vec<(usize, usize)> = merged.iter().map(|&(o, l)| (o - origin, l)).collect();
        let reach = blocks.last().map_or(0, |b| b.0 + b.1);
        Datatype {
            name: name.to_string(),
            blocks,
            origin: origin as isize,
            reach,
            extent: extent as isize,
            size,
            lb: 0,
            sticky_lb: false,
            sticky_ub: false,
            align: 1,
            runs: if size > 0 {
                vec![(1, size as u64)]
            } else {
                vec![]
            },
            whole_only: true,
            basic: None,
            contents: None,
        }
    }

    /// A type of `size` contiguous bytes.
    pub fn contiguous_bytes(name: &str, size: usize) -> Datatype {
        Datatype::new(name, &[(0, size)], size)
    }

    /// A predefined type: `blocks` as in [`Datatype::new`], its basic
    /// elements and its alignment.
    fn predefined(
        name: &str,
        blocks: &[(usize, usize)],
        extent: usize,
        runs: &[(usize, u64)],
        align: usize,
        whole_only: bool,
    ) -> Datatype {
        let mut t = Datatype::new(name, blocks, extent);
        t.runs = merge_runs(runs);
        t.align = align;
        t.whole_only = whole_only;
        debug_assert_eq!(
            t.size as u64,
            t.runs.iter().map(|r| r.0 as u64 * r.1).sum::<u64>()
        );
        t
    }

    /// A derived type from its layout (blocks are merged here: a block that
    /// starts where the previous one ends joins it).
    pub fn from_layout(name: &str, l: Layout, contents: Contents) -> Datatype {
        let mut merged: Vec<(isize, usize)> = Vec::with_capacity(l.blocks.len());
        for (off, len) in l.blocks.into_iter().filter(|b| b.1 > 0) {
            match merged.last_mut() {
                Some(last) if last.0 + last.1 as isize == off => last.1 += len,
                _ => merged.push((off, len)),
            }
        }
        let origin = merged.iter().map(|b| b.0).min().unwrap_or(0);
        let end = merged.iter().map(|b| b.0 + b.1 as isize).max().unwrap_or(0);
        let blocks = merged
            .iter()
            .map(|&(o, len)| ((o - origin) as usize, len))
            .collect();
        Datatype {
            name: name.to_string(),
            blocks,
            origin,
            reach: (end - origin) as usize,
            extent: l.extent,
            size: merged.iter().map(|b| b.1).sum(),
            lb: l.lb,
            sticky_lb: l.sticky_lb,
            sticky_ub: l.sticky_ub,
            align: l.align,
            runs: merge_runs(&l.runs),
            whole_only: false,
            basic: None,
            contents: Some(Box::new(contents)),
        }
    }

    /// The same type map as a derived type made by `contents` (MPI_Type_dup).
    pub fn duplicate(&self, contents: Contents) -> Datatype {
        let mut t = self.clone();
        t.whole_only = false;
        t.contents = Some(Box::new(contents));
        t
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// The predefined type every basic element of this type is (see the
    /// field); None for a heterogeneous type or one without elements.
    pub fn basic(&self) -> Option<sys::MPI_Datatype> {
        self.basic
    }
    /// Records the predefined type all basic elements are copies of.
    pub fn set_basic(&mut self, basic: Option<sys::MPI_Datatype>) {
        self.basic = basic;
    }
    /// Gives the type its final name (the handle table names derived types).
    pub fn set_name(&mut self, name: String) {
        self.name = name;
    }
    /// Bytes of data in one element (MPI_Type_size).
    pub fn size(&self) -> usize {
        self.size
    }
    /// Distance between consecutive elements in memory (ub - lb; negative
    /// when ub < lb).
    pub fn extent(&self) -> isize {
        self.extent
    }
    /// Data blocks (offset from [`Datatype::origin`], length) in type-map order.
    pub fn blocks(&self) -> &[(usize, usize)] {
        &self.blocks
    }
    /// Offset from the buffer pointer of the first data byte of element 0
    /// (the true lower bound, 0 for an empty type). [`Datatype::pack`] and
    /// [`Datatype::unpack`] take user memory starting there for one element
    /// (see [`Datatype::mem_start`] for several).
    pub fn origin(&self) -> isize {
        self.origin
    }
    /// Lower bound (MPI_Type_get_extent).
    pub fn lb(&self) -> isize {
        self.lb
    }
    /// Upper bound: lb + extent.
    pub fn ub(&self) -> isize {
        self.lb + self.extent
    }
    /// True lower bound: the first data byte (0 for an empty type).
    pub fn true_lb(&self) -> isize {
        self.origin
    }
    /// True upper bound: one past the last data byte.
    pub fn true_ub(&self) -> isize {
        self.origin + self.reach as isize
    }
    /// True extent: true_ub - true_lb.
    pub fn true_extent(&self) -> usize {
        self.reach
    }
    pub fn sticky_lb(&self) -> bool {
        self.sticky_lb
    }
    pub fn sticky_ub(&self) -> bool {
        self.sticky_ub
    }
    pub fn align(&self) -> usize {
        self.align
    }
    /// Basic elements in packed order: (element size, count).
    pub fn runs(&self) -> &[(usize, u64)] {
        &self.runs
    }
    /// Number of basic elements in one element.
    pub fn elements_per_item(&self) -> u64 {
        self.runs.iter().map(|r| r.1).sum()
    }
    /// The constructor call (None for a predefined type).
    pub fn contents(&self) -> Option<&Contents> {
        self.contents.as_deref()
    }
    /// No data and no explicit bounds: contributes nothing to a type built
    /// from it.
    pub fn is_empty_map(&self) -> bool {
        self.size == 0 && !self.sticky_lb && !self.sticky_ub
    }
    /// One block that fills the whole extent: `n` consecutive elements are
    /// one block.
    pub fn is_dense(&self) -> bool {
        self.blocks.len() == 1 && self.size as isize == self.extent
    }
    /// `count` elements are the `count * extent` bytes at the buffer pointer
    /// with no padding and in memory order, so the user's buffer can be sent
    /// or received as it is.
    pub fn is_contiguous(&self) -> bool {
        self.size as isize == self.extent
            && (self.size == 0 || (self.origin == 0 && self.blocks == [(0, self.size)]))
    }
    /// Whether `count` elements fit the address space (their packed bytes
    /// and the memory they span at most isize::MAX bytes): MPI_ERR_COUNT
    /// otherwise, before any size is computed (a large-count `_c` call can
    /// ask for more than any buffer holds).
    pub fn check_count(&self, count: usize) -> MpiResult<()> {
        let packed = self.size.checked_mul(count);
        let span = count
            .checked_sub(1)
            .map_or(Some(0), |k| k.checked_mul(self.extent.unsigned_abs()))
            .and_then(|s| s.checked_add(self.reach));
        match (packed, span) {
            (Some(p), Some(s)) if p <= isize::MAX as usize && s <= isize::MAX as usize => Ok(()),
            _ => fail(
                sys::MPI_ERR_COUNT,
                format!(
                    "{count} elements of {} are more bytes than the address space holds",
                    self.name
                ),
            ),
        }
    }

    /// Bytes of `count` elements on the wire.
    pub fn packed_size(&self, count: usize) -> usize {
        self.size * count
    }
    /// Bytes of user memory that `count` elements touch, from
    /// [`Datatype::mem_start`] to the end of the furthest block of the
    /// furthest element.
    pub fn span(&self, count: usize) -> usize {
        if count == 0 || self.size == 0 {
            return 0;
        }
        (count - 1) * self.extent.unsigned_abs() + self.reach
    }

    /// Offset from the buffer pointer of the first byte `count` elements
    /// touch: the origin of element 0, or of the last element when the
    /// extent is negative. Pack and unpack take user memory from there.
    pub fn mem_start(&self, count: usize) -> isize {
        if self.extent < 0 && count > 1 {
            self.origin + (count - 1) as isize * self.extent
        } else {
            self.origin
        }
    }

    /// Offset of element `i` from [`Datatype::mem_start`] of `count`
    /// elements.
    fn element_base(&self, i: usize, count: usize) -> usize {
        if self.extent < 0 {
            (count - 1 - i) * self.extent.unsigned_abs()
        } else {
            i * self.extent as usize
        }
    }

    /// Gather `count` elements from `src` (user memory from
    /// [`Datatype::mem_start`], at least `span(count)` bytes).
    pub fn pack(&self, src: &[u8], count: usize) -> Vec<u8> {
        let mut out = vec![0u8; self.packed_size(count)];
        self.pack_into(src, count, &mut out);
        out
    }

    /// Like [`Datatype::pack`], into the first `packed_size(count)` bytes of
    /// `dst`.
    pub fn pack_into(&self, src: &[u8], count: usize, dst: &mut [u8]) {
        assert!(src.len() >= self.span(count), "pack: source too short");
        let total = self.packed_size(count);
        assert!(dst.len() >= total, "pack: destination too short");
        if self.is_contiguous() {
            dst[..total].copy_from_slice(&src[..total]);
            return;
        }
        let mut at = 0;
        for i in 0..count {
            let base = self.element_base(i, count);
            for &(off, len) in &self.blocks {
                dst[at..at + len].copy_from_slice(&src[base + off..base + off + len]);
                at += len;
            }
        }
    }

    /// Scatter packed `bytes` into `count` elements at `dst` (user memory
    /// from [`Datatype::mem_start`], at least `span(count)` bytes). A short `bytes` (a
    /// truncated or shorter message) fills the elements in order and stops
    /// where the data ends; bytes beyond `packed_size(count)` are ignored.
    pub fn unpack(&self, bytes: &[u8], dst: &mut [u8], count: usize) {
        assert!(
            dst.len() >= self.span(count),
            "unpack: destination too short"
        );
        let mut rest = &bytes[..bytes.len().min(self.packed_size(count))];
        if self.is_contiguous() {
            dst[..rest.len()].copy_from_slice(rest);
            return;
        }
        'elements: for i in 0..count {
            let base = self.element_base(i, count);
            for &(off, len) in &self.blocks {
                if rest.is_empty() {
                    break 'elements;
                }
                let n = len.min(rest.len());
                dst[base + off..base + off + n].copy_from_slice(&rest[..n]);
                rest = &rest[n..];
            }
        }
    }

    /// MPI_Get_elements for a message of `bytes` packed bytes: the basic
    /// elements it holds, counting those of a partial last element; None
    /// (MPI_UNDEFINED) when the type has no data but the message has, or
    /// when a predefined type does not divide the byte count.
    pub fn elements(&self, bytes: u64) -> Option<u64> {
        let size = self.size as u64;
        if size == 0 {
            return (bytes == 0).then_some(0);
        }
        if self.whole_only && !bytes.is_multiple_of(size) {
            return None;
        }
        let mut n = bytes / size * self.elements_per_item();
        let mut rest = bytes % size;
        for &(s, k) in &self.runs {
            let whole = (rest / s as u64).min(k);
            n += whole;
            rest -= whole * s as u64;
            if whole < k {
                break;
            }
        }
        Some(n)
    }
}

/// Joins consecutive runs of elements of the same size.
pub fn merge_runs(runs: &[(usize, u64)]) -> Vec<(usize, u64)> {
    let mut out: Vec<(usize, u64)> = Vec::with_capacity(runs.len());
    for &(s, k) in runs.iter().filter(|r| r.1 > 0) {
        match out.last_mut() {
            Some(last) if last.0 == s => last.1 += k,
            _ => out.push((s, k)),
        }
    }
    out
}

/// Layout of a predefined type.
enum Predef {
    /// One basic element of this size, aligned to its size.
    Scalar(usize),
    /// A complex number of this size: one basic element aligned as its parts.
    Complex(usize),
    /// Two consecutive values of this size (MPI_2INT, MPI_2INTEGER, ...): two
    /// basic elements.
    Twin(usize),
    /// A pair `{a; int}` laid out as the C struct: (first member size,
    /// offset of the int, C struct size); two basic elements.
    PairInt(usize, usize, usize),
    /// MPI_LB / MPI_UB: no data, no extent (see `crate::mpi::bound_markers`).
    Marker,
}
use Predef::{Complex, Marker, PairInt, Scalar, Twin};

/// Every predefined datatype of mpi.h with its layout on LP64 Linux.
const PREDEFINED: &[(sys::MPI_Datatype, &str, Predef)] = &[
    (sys::MPI_CHAR, "MPI_CHAR", Scalar(1)),
    (sys::MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", Scalar(1)),
    (sys::MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", Scalar(1)),
    (sys::MPI_BYTE, "MPI_BYTE", Scalar(1)),
    (sys::MPI_WCHAR, "MPI_WCHAR", Scalar(4)),
    (sys::MPI_SHORT, "MPI_SHORT", Scalar(2)),
    (sys::MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", Scalar(2)),
    (sys::MPI_INT, "MPI_INT", Scalar(4)),
    (sys::MPI_UNSIGNED, "MPI_UNSIGNED", Scalar(4)),
    (sys::MPI_LONG, "MPI_LONG", Scalar(8)),
    (sys::MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", Scalar(8)),
    (sys::MPI_FLOAT, "MPI_FLOAT", Scalar(4)),
    (sys::MPI_DOUBLE, "MPI_DOUBLE", Scalar(8)),
    (sys::MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", Scalar(16)),
    (sys::MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", Scalar(8)),
    (sys::MPI_LONG_LONG, "MPI_LONG_LONG", Scalar(8)),
    (
        sys::MPI_UNSIGNED_LONG_LONG,
        "MPI_UNSIGNED_LONG_LONG",
        Scalar(8),
    ),
    (sys::MPI_PACKED, "MPI_PACKED", Scalar(1)),
    (sys::MPI_C_BOOL, "MPI_C_BOOL", Scalar(1)),
    (sys::MPI_INT8_T, "MPI_INT8_T", Scalar(1)),
    (sys::MPI_INT16_T, "MPI_INT16_T", Scalar(2)),
    (sys::MPI_INT32_T, "MPI_INT32_T", Scalar(4)),
    (sys::MPI_INT64_T, "MPI_INT64_T", Scalar(8)),
    (sys::MPI_UINT8_T, "MPI_UINT8_T", Scalar(1)),
    (sys::MPI_UINT16_T, "MPI_UINT16_T", Scalar(2)),
    (sys::MPI_UINT32_T, "MPI_UINT32_T", Scalar(4)),
    (sys::MPI_UINT64_T, "MPI_UINT64_T", Scalar(8)),
    (sys::MPI_C_COMPLEX, "MPI_C_COMPLEX", Complex(8)),
    (sys::MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", Complex(8)),
    (
        sys::MPI_C_DOUBLE_COMPLEX,
        "MPI_C_DOUBLE_COMPLEX",
        Complex(16),
    ),
    (
        sys::MPI_C_LONG_DOUBLE_COMPLEX,
        "MPI_C_LONG_DOUBLE_COMPLEX",
        Complex(32),
    ),
    (sys::MPI_AINT, "MPI_AINT", Scalar(8)),
    (sys::MPI_OFFSET, "MPI_OFFSET", Scalar(8)),
    (sys::MPI_COUNT, "MPI_COUNT", Scalar(8)),
    // struct { float a; int i; }: 4 + 4, no padding
    (sys::MPI_FLOAT_INT, "MPI_FLOAT_INT", PairInt(4, 4, 8)),
    // struct { double a; int i; }: int at 8, padded to 16
    (sys::MPI_DOUBLE_INT, "MPI_DOUBLE_INT", PairInt(8, 8, 16)),
    // struct { long a; int i; }: int at 8, padded to 16
    (sys::MPI_LONG_INT, "MPI_LONG_INT", PairInt(8, 8, 16)),
    (sys::MPI_2INT, "MPI_2INT", Twin(4)),
    // struct { short a; int i; }: int aligned to 4
    (sys::MPI_SHORT_INT, "MPI_SHORT_INT", PairInt(2, 4, 8)),
    // struct { long double a; int i; }: int at 16, padded to 32
    (
        sys::MPI_LONG_DOUBLE_INT,
        "MPI_LONG_DOUBLE_INT",
        PairInt(16, 16, 32),
    ),
    (sys::MPI_CHARACTER, "MPI_CHARACTER", Scalar(1)),
    (sys::MPI_LOGICAL, "MPI_LOGICAL", Scalar(4)),
    (sys::MPI_INTEGER, "MPI_INTEGER", Scalar(4)),
    (sys::MPI_REAL, "MPI_REAL", Scalar(4)),
    (sys::MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", Scalar(8)),
    (sys::MPI_COMPLEX, "MPI_COMPLEX", Complex(8)),
    (sys::MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", Complex(16)),
    (sys::MPI_INTEGER1, "MPI_INTEGER1", Scalar(1)),
    (sys::MPI_INTEGER2, "MPI_INTEGER2", Scalar(2)),
    (sys::MPI_INTEGER4, "MPI_INTEGER4", Scalar(4)),
    (sys::MPI_INTEGER8, "MPI_INTEGER8", Scalar(8)),
    (sys::MPI_REAL4, "MPI_REAL4", Scalar(4)),
    (sys::MPI_REAL8, "MPI_REAL8", Scalar(8)),
    // Fortran pairs are two contiguous values of the same type
    (sys::MPI_2INTEGER, "MPI_2INTEGER", Twin(4)),
    (sys::MPI_2REAL, "MPI_2REAL", Twin(4)),
    (sys::MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", Twin(8)),
    (sys::MPI_REAL16, "MPI_REAL16", Scalar(16)),
    (sys::MPI_COMPLEX8, "MPI_COMPLEX8", Complex(8)),
    (sys::MPI_COMPLEX16, "MPI_COMPLEX16", Complex(16)),
    (sys::MPI_COMPLEX32, "MPI_COMPLEX32", Complex(32)),
    (sys::MPI_INTEGER16, "MPI_INTEGER16", Scalar(16)),
    (sys::MPI_CXX_BOOL, "MPI_CXX_BOOL", Scalar(1)),
    (
        sys::MPI_CXX_FLOAT_COMPLEX,
        "MPI_CXX_FLOAT_COMPLEX",
        Complex(8),
    ),
    (
        sys::MPI_CXX_DOUBLE_COMPLEX,
        "MPI_CXX_DOUBLE_COMPLEX",
        Complex(16),
    ),
    (
        sys::MPI_CXX_LONG_DOUBLE_COMPLEX,
        "MPI_CXX_LONG_DOUBLE_COMPLEX",
        Complex(32),
    ),
    (sys::MPI_LB, "MPI_LB", Marker),
    (sys::MPI_UB, "MPI_UB", Marker),
];

/// (handle, layout) of every predefined datatype; aliases
/// (MPI_LONG_LONG = MPI_LONG_LONG_INT) come after the name they alias.
pub(crate) fn predefined_types() -> Vec<(sys::MPI_Datatype, Datatype)> {
    PREDEFINED
        .iter()
        .map(|(handle, name, layout)| {
            let t = match *layout {
                Scalar(n) => Datatype::predefined(name, &[(0, n)], n, &[(n, 1)], n, true),
                Complex(n) => Datatype::predefined(name, &[(0, n)], n, &[(n, 1)], n / 2, true),
                Twin(n) => Datatype::predefined(name, &[(0, 2 * n)], 2 * n, &[(n, 2)], n, true),
                Marker => Datatype::predefined(name, &[], 0, &[], 1, true),
                PairInt(a, int_off, extent) => Datatype::predefined(
                    name,
                    &[(0, a), (int_off, 4)],
                    extent,
                    &[(a, 1), (4, 1)],
                    a.max(4),
                    false,
                ),
            };
            let mut t = t;
            t.basic = Some(*handle);
            (*handle, t)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, handle) of every `#define NAME ((MPI_Datatype)0x...)` in mpi.h.
    fn header_datatypes() -> Vec<(String, i32)> {
        include_str!("../../include/mpi.h")
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("#define ")?;
                let (name, val) = rest.split_once(' ')?;
                let hex = val
                    .trim()
                    .strip_prefix("((MPI_Datatype)0x")?
                    .strip_suffix(')')?;
                Some((name.to_string(), u32::from_str_radix(hex, 16).ok()? as i32))
            })
            .collect()
    }

    #[test]
    fn table_holds_every_datatype_of_mpi_h() {
        let t = TypeTable::new();
        let header = header_datatypes();
        assert_eq!(header.len(), 68);
        for (name, h) in &header {
            if name == "MPI_DATATYPE_NULL" {
                assert!(t.get(*h).is_err());
                continue;
            }
            let ty = t.get(*h).unwrap_or_else(|e| panic!("{name}: {}", e.msg));
            // mpi.h encodes the size in bits 8-15; our table is written out
            // by hand, so the two must agree
            assert_eq!(ty.size(), ((h >> 8) & 0xff) as usize, "{name}");
            assert!(
                PREDEFINED.iter().any(|p| p.1 == name),
                "{name} not in table"
            );
        }
        // 67 names, two pairs of aliases
        assert_eq!(PREDEFINED.len(), 67);
        assert_eq!(t.handles().count(), 65);
        assert_eq!(
            t.get(sys::MPI_LONG_LONG).unwrap().name(),
            "MPI_LONG_LONG_INT"
        );
    }

    #[test]
    fn pair_type_layouts() {
        let t = TypeTable::new();
        let check = |h, size, extent, blocks: &[(usize, usize)], contig| {
            let ty = t.get(h).unwrap();
            assert_eq!(ty.size(), size, "{}", ty.name());
            assert_eq!(ty.extent(), extent, "{}", ty.name());
            assert_eq!(ty.blocks(), blocks, "{}", ty.name());
            assert_eq!(ty.is_contiguous(), contig, "{}", ty.name());
        };
        check(sys::MPI_FLOAT_INT, 8, 8, &[(0, 8)], true);
        check(sys::MPI_DOUBLE_INT, 12, 16, &[(0, 12)], false);
        check(sys::MPI_LONG_INT, 12, 16, &[(0, 12)], false);
        check(sys::MPI_2INT, 8, 8, &[(0, 8)], true);
        check(sys::MPI_SHORT_INT, 6, 8, &[(0, 2), (4, 4)], false);
        check(sys::MPI_LONG_DOUBLE_INT, 20, 32, &[(0, 20)], false);
        check(sys::MPI_2INTEGER, 8, 8, &[(0, 8)], true);
        check(sys::MPI_2REAL, 8, 8, &[(0, 8)], true);
        check(sys::MPI_2DOUBLE_PRECISION, 16, 16, &[(0, 16)], true);
        check(sys::MPI_LONG_DOUBLE, 16, 16, &[(0, 16)], true);
        check(sys::MPI_C_LONG_DOUBLE_COMPLEX, 32, 32, &[(0, 32)], true);
    }

    #[test]
    fn invalid_handles_are_type_errors() {
        let t = TypeTable::new();
        for h in [
            sys::MPI_DATATYPE_NULL,
            0,
            -1,
            0x4c000100,
            sys::MPI_COMM_WORLD,
        ] {
            let e = t.get(h).unwrap_err();
            assert_eq!(e.class, sys::MPI_ERR_TYPE);
        }
        assert_eq!(
            t.get(0x4c000100).unwrap_err().msg,
            "invalid datatype handle 0x4c000100"
        );
    }

    #[test]
    fn short_int_pack_unpack_skips_padding() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_SHORT_INT).unwrap();
        // two elements {short 0x0201; pad 0xEE 0xEE; int 0x06050403}
        let mem: Vec<u8> = vec![
            1, 2, 0xee, 0xee, 3, 4, 5, 6, 11, 12, 0xee, 0xee, 13, 14, 15, 16,
        ];
        assert_eq!(ty.span(2), 16);
        let packed = ty.pack(&mem, 2);
        assert_eq!(packed, vec![1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16]);
        let mut out = vec![0u8; 16];
        ty.unpack(&packed, &mut out, 2);
        assert_eq!(
            out,
            vec![1, 2, 0, 0, 3, 4, 5, 6, 11, 12, 0, 0, 13, 14, 15, 16]
        );
    }

    #[test]
    fn double_int_span_excludes_trailing_padding() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_DOUBLE_INT).unwrap();
        assert_eq!(ty.packed_size(3), 36);
        assert_eq!(ty.span(3), 2 * 16 + 12);
        assert_eq!(ty.span(0), 0);
        let mem: Vec<u8> = (0..44).collect();
        let packed = ty.pack(&mem, 3);
        let expect: Vec<u8> = (0..12).chain(16..28).chain(32..44).collect();
        assert_eq!(packed, expect);
    }

    #[test]
    fn unpack_of_a_short_message_stops_where_data_ends() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_SHORT_INT).unwrap();
        let mut out = vec![0xffu8; 16];
        // 6 bytes of element 0, then 1 byte of element 1's short
        ty.unpack(&[1, 2, 3, 4, 5, 6, 7], &mut out, 2);
        assert_eq!(
            out,
            vec![1, 2, 0xff, 0xff, 3, 4, 5, 6, 7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
        );
        // more bytes than the elements hold: the excess is ignored
        let ty = t.get(sys::MPI_INT).unwrap();
        let mut out = vec![0u8; 4];
        ty.unpack(&[1, 2, 3, 4, 5, 6], &mut out, 1);
        assert_eq!(out, vec![1, 2, 3, 4]);
    }

    #[test]
    fn contiguous_pack_is_a_copy() {
        let t = TypeTable::new();
        let ty = t.get(sys::MPI_INT).unwrap();
        let mem: Vec<u8> = (0..12).collect();
        assert_eq!(ty.pack(&mem, 2), (0..8).collect::<Vec<u8>>());
        assert_eq!(ty.span(3), 12);
    }

    #[test]
    fn new_merges_adjacent_blocks_and_drops_empty_ones() {
        let ty = Datatype::new("t", &[(4, 4), (0, 4), (8, 0), (12, 2)], 16);
        assert_eq!(ty.blocks(), &[(0, 8), (12, 2)]);
        assert_eq!(ty.size(), 10);
        assert_eq!(ty.span(2), 16 + 14);
    }
}
