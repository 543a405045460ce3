//! Datatypes: the layout of every predefined datatype of mpi.h (a list of
//! byte blocks plus an extent, so derived types fit the same shape), the
//! handle table, and pack / unpack between user memory and the packed bytes
//! that travel on the wire.
use crate::mpi::error::{fail, MpiResult};
use crate::sys;
use std::collections::HashMap;
use std::sync::Arc;

/// The memory layout of one element: bytes `[off, off + len)` for each block
/// hold data, the rest of `[0, extent)` is padding. Blocks are sorted,
/// non-overlapping and merged when adjacent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Datatype {
    name: String,
    blocks: Vec<(usize, usize)>,
    extent: usize,
    size: usize,
}

impl Datatype {
    /// A type made of `blocks` (offset, length) within an element of `extent`
    /// bytes. Panics on overlapping or out-of-extent blocks (a programming
    /// error in whoever builds the type).
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
        let size = merged.iter().map(|b| b.1).sum();
        Datatype {
            name: name.to_string(),
            blocks: merged,
            extent,
            size,
        }
    }

    /// A type of `size` contiguous bytes.
    pub fn contiguous_bytes(name: &str, size: usize) -> Datatype {
        Datatype::new(name, &[(0, size)], size)
    }

    pub fn name(&self) -> &str {
        &self.name
    }
    /// Bytes of data in one element (MPI_Type_size).
    pub fn size(&self) -> usize {
        self.size
    }
    /// Distance between consecutive elements in memory.
    pub fn extent(&self) -> usize {
        self.extent
    }
    pub fn blocks(&self) -> &[(usize, usize)] {
        &self.blocks
    }
    /// `count` elements occupy `count * extent` bytes with no padding, so the
    /// user's buffer can be sent or received as it is.
    pub fn is_contiguous(&self) -> bool {
        self.size == self.extent
    }
    /// Bytes of `count` elements on the wire.
    pub fn packed_size(&self, count: usize) -> usize {
        self.size * count
    }
    /// Bytes of user memory that `count` elements touch, from the buffer
    /// start to the end of the last block of the last element.
    pub fn span(&self, count: usize) -> usize {
        match (count, self.blocks.last()) {
            (0, _) | (_, None) => 0,
            (n, Some(&(off, len))) => (n - 1) * self.extent + off + len,
        }
    }

    /// Gather `count` elements from `src` (at least `span(count)` bytes).
    pub fn pack(&self, src: &[u8], count: usize) -> Vec<u8> {
        assert!(src.len() >= self.span(count), "pack: source too short");
        let mut out = Vec::with_capacity(self.packed_size(count));
        if self.is_contiguous() {
            out.extend_from_slice(&src[..self.packed_size(count)]);
            return out;
        }
        for i in 0..count {
            let base = i * self.extent;
            for &(off, len) in &self.blocks {
                out.extend_from_slice(&src[base + off..base + off + len]);
            }
        }
        out
    }

    /// Scatter packed `bytes` into `count` elements at `dst` (at least
    /// `span(count)` bytes). A short `bytes` (a truncated or shorter message)
    /// fills the elements in order and stops where the data ends; bytes
    /// beyond `packed_size(count)` are ignored.
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
            let base = i * self.extent;
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
}

/// Layout of a predefined type: a scalar of `size` bytes, or a pair
/// `{a; int}` laid out as the C struct.
enum Predef {
    Scalar(usize),
    /// (first member size, offset of the int, C struct size)
    PairInt(usize, usize, usize),
}
use Predef::{PairInt, Scalar};

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
    (sys::MPI_C_COMPLEX, "MPI_C_COMPLEX", Scalar(8)),
    (sys::MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", Scalar(8)),
    (
        sys::MPI_C_DOUBLE_COMPLEX,
        "MPI_C_DOUBLE_COMPLEX",
        Scalar(16),
    ),
    (
        sys::MPI_C_LONG_DOUBLE_COMPLEX,
        "MPI_C_LONG_DOUBLE_COMPLEX",
        Scalar(32),
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
    (sys::MPI_2INT, "MPI_2INT", PairInt(4, 4, 8)),
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
    (sys::MPI_COMPLEX, "MPI_COMPLEX", Scalar(8)),
    (sys::MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", Scalar(16)),
    (sys::MPI_INTEGER1, "MPI_INTEGER1", Scalar(1)),
    (sys::MPI_INTEGER2, "MPI_INTEGER2", Scalar(2)),
    (sys::MPI_INTEGER4, "MPI_INTEGER4", Scalar(4)),
    (sys::MPI_INTEGER8, "MPI_INTEGER8", Scalar(8)),
    (sys::MPI_REAL4, "MPI_REAL4", Scalar(4)),
    (sys::MPI_REAL8, "MPI_REAL8", Scalar(8)),
    // Fortran pairs are two contiguous values of the same type
    (sys::MPI_2INTEGER, "MPI_2INTEGER", Scalar(8)),
    (sys::MPI_2REAL, "MPI_2REAL", Scalar(8)),
    (
        sys::MPI_2DOUBLE_PRECISION,
        "MPI_2DOUBLE_PRECISION",
        Scalar(16),
    ),
];

/// Datatype handles -> layouts.
#[derive(Debug, Clone)]
pub struct TypeTable {
    map: HashMap<sys::MPI_Datatype, Arc<Datatype>>,
}

impl Default for TypeTable {
    fn default() -> Self {
        TypeTable::new()
    }
}

impl TypeTable {
    /// A table holding every predefined datatype.
    pub fn new() -> TypeTable {
        let mut map = HashMap::new();
        for (handle, name, layout) in PREDEFINED {
            let t = match *layout {
                Scalar(n) => Datatype::contiguous_bytes(name, n),
                PairInt(a, int_off, extent) => Datatype::new(name, &[(0, a), (int_off, 4)], extent),
            };
            // aliases (MPI_LONG_LONG = MPI_LONG_LONG_INT) keep the first name
            map.entry(*handle).or_insert_with(|| Arc::new(t));
        }
        TypeTable { map }
    }

    /// The datatype behind `handle`; MPI_ERR_TYPE for a null or unknown one.
    pub fn get(&self, handle: sys::MPI_Datatype) -> MpiResult<Arc<Datatype>> {
        if handle == sys::MPI_DATATYPE_NULL {
            return fail(
                sys::MPI_ERR_TYPE,
                "MPI_DATATYPE_NULL is not a valid datatype",
            );
        }
        match self.map.get(&handle) {
            Some(t) => Ok(t.clone()),
            None => fail(
                sys::MPI_ERR_TYPE,
                format!("invalid datatype handle {handle:#x}"),
            ),
        }
    }

    /// Every handle in the table.
    pub fn handles(&self) -> impl Iterator<Item = sys::MPI_Datatype> + '_ {
        self.map.keys().copied()
    }
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
        assert_eq!(header.len(), 57);
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
        // 56 names, two pairs of aliases
        assert_eq!(PREDEFINED.len(), 56);
        assert_eq!(t.handles().count(), 54);
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
