//! The "external32" data representation (MPI 3.1 section 13.5.2) of
//! MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size:
//! every basic element big-endian, with the standard's sizes (Table 13.2):
//! MPI_LONG and MPI_UNSIGNED_LONG take 4 bytes, MPI_WCHAR 2, floating point
//! is IEEE (MPI_LONG_DOUBLE is IEEE quad: 16 bytes), complex types are two
//! reals, the pair types their two members. A value that does not fit its
//! external size (a long beyond 32 bits) is MPI_ERR_CONVERSION.
//!
//! The element types of a derived datatype, in packed order, come from its
//! constructor (`Contents`): a struct's members in order, every other
//! constructor copies of its one old type.
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Datatype};

/// How one member of a basic element is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Conv {
    /// The same size, byte order reversed.
    Swap(usize),
    /// A native integer of `from` bytes as `to` bytes.
    Narrow {
        from: usize,
        to: usize,
        signed: bool,
    },
    /// x87 extended precision (C long double, 16 bytes) as IEEE quad.
    LongDouble,
}
use Conv::{LongDouble, Narrow, Swap};

impl Conv {
    fn native(self) -> usize {
        match self {
            Swap(n) => n,
            Narrow { from, .. } => from,
            LongDouble => 16,
        }
    }
    fn external(self) -> usize {
        match self {
            Swap(n) => n,
            Narrow { to, .. } => to,
            LongDouble => 16,
        }
    }
}

const LONG: Conv = Narrow {
    from: 8,
    to: 4,
    signed: true,
};

/// The members of a predefined datatype (None: not a basic datatype).
fn members(h: MPI_Datatype) -> Option<&'static [Conv]> {
    use sys::*;
    Some(match h {
        MPI_CHAR | MPI_SIGNED_CHAR | MPI_UNSIGNED_CHAR | MPI_BYTE | MPI_PACKED | MPI_C_BOOL
        | MPI_INT8_T | MPI_UINT8_T | MPI_CHARACTER | MPI_INTEGER1 | MPI_CXX_BOOL => &[Swap(1)],
        MPI_WCHAR => &[Narrow {
            from: 4,
            to: 2,
            signed: false,
        }],
        MPI_SHORT | MPI_UNSIGNED_SHORT | MPI_INT16_T | MPI_UINT16_T | MPI_INTEGER2 => &[Swap(2)],
        MPI_INT | MPI_UNSIGNED | MPI_INT32_T | MPI_UINT32_T | MPI_FLOAT | MPI_LOGICAL
        | MPI_INTEGER | MPI_REAL | MPI_INTEGER4 | MPI_REAL4 => &[Swap(4)],
        MPI_LONG => &[LONG],
        MPI_UNSIGNED_LONG => &[Narrow {
            from: 8,
            to: 4,
            signed: false,
        }],
        MPI_LONG_LONG_INT
        | MPI_UNSIGNED_LONG_LONG
        | MPI_INT64_T
        | MPI_UINT64_T
        | MPI_DOUBLE
        | MPI_AINT
        | MPI_OFFSET
        | MPI_COUNT
        | MPI_DOUBLE_PRECISION
        | MPI_INTEGER8
        | MPI_REAL8 => &[Swap(8)],
        MPI_LONG_DOUBLE => &[LongDouble],
        MPI_INTEGER16 | MPI_REAL16 => &[Swap(16)],
        MPI_C_FLOAT_COMPLEX | MPI_COMPLEX | MPI_COMPLEX8 | MPI_CXX_FLOAT_COMPLEX => {
            &[Swap(4), Swap(4)]
        }
        MPI_C_DOUBLE_COMPLEX | MPI_DOUBLE_COMPLEX | MPI_COMPLEX16 | MPI_CXX_DOUBLE_COMPLEX => {
            &[Swap(8), Swap(8)]
        }
        MPI_C_LONG_DOUBLE_COMPLEX | MPI_CXX_LONG_DOUBLE_COMPLEX => &[LongDouble, LongDouble],
        MPI_COMPLEX32 => &[Swap(16), Swap(16)],
        MPI_FLOAT_INT | MPI_2INT | MPI_2INTEGER | MPI_2REAL => &[Swap(4), Swap(4)],
        MPI_DOUBLE_INT => &[Swap(8), Swap(4)],
        MPI_LONG_INT => &[LONG, Swap(4)],
        MPI_SHORT_INT => &[Swap(2), Swap(4)],
        MPI_LONG_DOUBLE_INT => &[LongDouble, Swap(4)],
        MPI_2DOUBLE_PRECISION => &[Swap(8), Swap(8)],
        MPI_LB | MPI_UB => &[],
        _ => return None,
    })
}

/// Appends `n` repetitions of `seq` (runs of (predefined type, count)).
fn push_repeated(out: &mut Vec<(MPI_Datatype, u64)>, seq: &[(MPI_Datatype, u64)], n: u64) {
    if n == 0 {
        return;
    }
    let mut push = |h: MPI_Datatype, k: u64| match out.last_mut() {
        Some(last) if last.0 == h => last.1 += k,
        _ => out.push((h, k)),
    };
    if let [(h, k)] = seq {
        push(*h, k * n);
        return;
    }
    for _ in 0..n {
        for &(h, k) in seq {
            push(h, k);
        }
    }
}

/// The predefined types of the basic elements of one element of `ty`, in
/// packed order, as runs (type, count).
pub fn element_types(ty: &Datatype) -> MpiResult<Vec<(MPI_Datatype, u64)>> {
    let mut out = Vec::new();
    let Some(c) = ty.contents() else {
        let h = ty.basic().map_or_else(
            || {
                fail(
                    sys::MPI_ERR_TYPE,
                    format!("{} has no basic type", ty.name()),
                )
            },
            Ok,
        )?;
        return Ok(vec![(h, 1)]);
    };
    match c.combiner {
        sys::MPI_COMBINER_F90_REAL
        | sys::MPI_COMBINER_F90_COMPLEX
        | sys::MPI_COMBINER_F90_INTEGER => {
            if let Some(h) = ty.basic() {
                out.push((h, 1));
            }
        }
        sys::MPI_COMBINER_STRUCT => {
            let n = c.types.len();
            for (i, t) in c.types.iter().enumerate() {
                let bl = c.ints[1 + i].max(0) as u64;
                debug_assert!(c.ints.len() > n);
                push_repeated(&mut out, &element_types(&t.ty)?, bl);
            }
        }
        _ => {
            let old = &c.types[0].ty;
            if old.size() > 0 {
                let n = (ty.size() / old.size()) as u64;
                push_repeated(&mut out, &element_types(old)?, n);
            }
        }
    }
    Ok(out)
}

/// The conversion of every member of one element, in order.
fn plan(ty: &Datatype) -> MpiResult<Vec<(Conv, u64)>> {
    let mut out: Vec<(Conv, u64)> = Vec::new();
    for (h, n) in element_types(ty)? {
        let m = members(h).map_or_else(
            || {
                fail(
                    sys::MPI_ERR_TYPE,
                    format!("datatype {h:#x} has no external32 representation"),
                )
            },
            Ok,
        )?;
        if let [one] = m {
            match out.last_mut() {
                Some(last) if last.0 == *one => last.1 += n,
                _ => out.push((*one, n)),
            }
        } else {
            for _ in 0..n {
                for &c in m {
                    out.push((c, 1));
                }
            }
        }
    }
    Ok(out)
}

/// MPI_Pack_external_size: bytes of `count` elements of `ty` in external32.
pub fn external_size(ty: &Datatype, count: usize) -> MpiResult<u64> {
    let one: u64 = plan(ty)?
        .iter()
        .map(|&(c, n)| c.external() as u64 * n)
        .sum();
    Ok(one * count as u64)
}

/// The datarep argument: only "external32".
pub fn check_datarep(datarep: &str) -> MpiResult<()> {
    if datarep != "external32" {
        return fail(
            sys::MPI_ERR_UNSUPPORTED_DATAREP,
            format!("data representation \"{datarep}\" is not supported (only \"external32\")"),
        );
    }
    Ok(())
}

fn conversion_error<T>(what: &str) -> MpiResult<T> {
    fail(
        sys::MPI_ERR_CONVERSION,
        format!("{what} does not fit its external32 size"),
    )
}

/// x87 extended (little-endian, 10 significant bytes of 16) to IEEE quad,
/// big-endian.
fn ld_to_quad(x: &[u8], out: &mut [u8]) {
    let mant = u64::from_le_bytes(x[0..8].try_into().unwrap());
    let se = u16::from_le_bytes(x[8..10].try_into().unwrap());
    let frac = ((mant & !(1u64 << 63)) as u128) << 49;
    let q = ((se as u128) << 112) | frac;
    out.copy_from_slice(&q.to_be_bytes());
}

/// IEEE quad, big-endian, to x87 extended (16 bytes, little-endian,
/// zero padding); the fraction is truncated to 63 bits.
fn quad_to_ld(q: &[u8], out: &mut [u8]) {
    let q = u128::from_be_bytes(q.try_into().unwrap());
    let se = (q >> 112) as u16;
    let frac = ((q >> 49) as u64) & !(1u64 << 63);
    let int_bit = if se & 0x7fff != 0 { 1u64 << 63 } else { 0 };
    out[0..8].copy_from_slice(&(frac | int_bit).to_le_bytes());
    out[8..10].copy_from_slice(&se.to_le_bytes());
    out[10..16].fill(0);
}

/// Native packed bytes of `count` elements of `ty` (as `Datatype::pack`
/// gives them) to external32.
pub fn to_external(ty: &Datatype, native: &[u8], count: usize) -> MpiResult<Vec<u8>> {
    let plan = plan(ty)?;
    let mut out = Vec::with_capacity(external_size(ty, count)? as usize);
    let mut at = 0;
    for _ in 0..count {
        for &(c, n) in &plan {
            for _ in 0..n {
                let x = &native[at..at + c.native()];
                at += c.native();
                match c {
                    Swap(k) => out.extend(x.iter().rev().take(k)),
                    Narrow { from, to, signed } => {
                        let mut b = [0u8; 8];
                        b[..from].copy_from_slice(x);
                        let v = u64::from_le_bytes(b);
                        let fits = if signed {
                            let s = v as i64;
                            s >= -(1i64 << (8 * to - 1)) && s < (1i64 << (8 * to - 1))
                        } else {
                            v < (1u64 << (8 * to))
                        };
                        if !fits {
                            let what = if to == 2 {
                                "a wide character"
                            } else {
                                "a long value"
                            };
                            return conversion_error(&format!("{what} ({v:#x})"));
                        }
                        out.extend_from_slice(&v.to_be_bytes()[8 - to..]);
                    }
                    LongDouble => {
                        let mut q = [0u8; 16];
                        ld_to_quad(x, &mut q);
                        out.extend_from_slice(&q);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// External32 bytes of `count` elements of `ty` to native packed bytes
/// (for `Datatype::unpack`).
pub fn from_external(ty: &Datatype, ext: &[u8], count: usize) -> MpiResult<Vec<u8>> {
    let plan = plan(ty)?;
    let mut out = Vec::with_capacity(ty.packed_size(count));
    let mut at = 0;
    for _ in 0..count {
        for &(c, n) in &plan {
            for _ in 0..n {
                let x = &ext[at..at + c.external()];
                at += c.external();
                match c {
                    Swap(_) => out.extend(x.iter().rev()),
                    Narrow { from, to, signed } => {
                        let mut b = [0u8; 8];
                        b[8 - to..].copy_from_slice(x);
                        let mut v = u64::from_be_bytes(b);
                        if signed && x[0] & 0x80 != 0 {
                            v |= !0u64 << (8 * to);
                        }
                        out.extend_from_slice(&v.to_le_bytes()[..from]);
                    }
                    LongDouble => {
                        let mut l = [0u8; 16];
                        quad_to_ld(x, &mut l);
                        out.extend_from_slice(&l);
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "external32_tests.rs"]
mod tests;
