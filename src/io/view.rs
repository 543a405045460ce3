//! File views (MPI_File_set_view): a displacement, an elementary type, a
//! filetype tiled from the displacement, and a data representation. A
//! view turns positions in the data a process sees (etype units) into the
//! byte runs of the file they occupy.
use crate::mpi::datatype::Datatype;
use crate::mpi::error::{fail, MpiResult};
use crate::sys::{self, MPI_Datatype};
use std::sync::Arc;

/// The data representations: "native" (and "internal", the same here) and
/// "external32".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Datarep {
    Native,
    Internal,
    External32,
}

impl Datarep {
    /// The representation named `s`: MPI_ERR_UNSUPPORTED_DATAREP for any
    /// other name (as ROMIO for a representation nobody registered).
    pub fn parse(s: &str) -> MpiResult<Datarep> {
        match s {
            "native" | "NATIVE" => Ok(Datarep::Native),
            "internal" | "INTERNAL" => Ok(Datarep::Internal),
            "external32" | "EXTERNAL32" => Ok(Datarep::External32),
            _ => fail(
                sys::MPI_ERR_UNSUPPORTED_DATAREP,
                format!(
                    "data representation \"{s}\" is not supported (\"native\", \"internal\" \
                     or \"external32\")"
                ),
            ),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Datarep::Native => "native",
            Datarep::Internal => "internal",
            Datarep::External32 => "external32",
        }
    }
}

/// A view.
#[derive(Debug, Clone)]
pub struct View {
    /// Bytes from the start of the file.
    pub disp: u64,
    pub etype: Arc<Datatype>,
    pub etype_h: MPI_Datatype,
    pub filetype: Arc<Datatype>,
    pub filetype_h: MPI_Datatype,
    pub datarep: Datarep,
}

impl View {
    /// The default view: displacement 0, MPI_BYTE, MPI_BYTE, "native".
    pub fn bytes(byte: Arc<Datatype>) -> View {
        View {
            disp: 0,
            etype: byte.clone(),
            etype_h: sys::MPI_BYTE,
            filetype: byte,
            filetype_h: sys::MPI_BYTE,
            datarep: Datarep::Native,
        }
    }

    /// Bytes of one etype.
    pub fn esize(&self) -> u64 {
        self.etype.size() as u64
    }

    /// The file runs (offset, length) holding `n` bytes of the view's data
    /// from data byte `start` on, in data order, adjacent runs merged.
    pub fn runs(&self, start: u64, n: u64) -> Vec<(u64, u64)> {
        let mut out: Vec<(u64, u64)> = Vec::new();
        if n == 0 {
            return out;
        }
        let ft = &self.filetype;
        let size = ft.size() as u64;
        let extent = ft.extent() as u64;
        let origin = ft.origin() as i64;
        let mut tile = start / size;
        let mut skip = start % size;
        let mut left = n;
        let mut push = |off: u64, len: u64| match out.last_mut() {
            Some(last) if last.0 + last.1 == off => last.1 += len,
            _ => out.push((off, len)),
        };
        // a dense filetype: one run
        if ft.is_dense() && origin == 0 {
            push(self.disp + start / size * extent + skip, n);
            return out;
        }
        while left > 0 {
            let base = self.disp as i64 + (tile * extent) as i64 + origin;
            for &(off, len) in ft.blocks() {
                let len = len as u64;
                if skip >= len {
                    skip -= len;
                    continue;
                }
                let take = (len - skip).min(left);
                push((base + off as i64) as u64 + skip, take);
                skip = 0;
                left -= take;
                if left == 0 {
                    break;
                }
            }
            tile += 1;
        }
        out
    }

    /// The absolute byte of the file where view position `pos` (in etypes)
    /// is (MPI_File_get_byte_offset).
    pub fn byte_offset(&self, pos: u64) -> u64 {
        let start = pos * self.esize();
        let ft = &self.filetype;
        let size = ft.size() as u64;
        if size == 0 {
            return self.disp;
        }
        let tile = start / size;
        let mut skip = start % size;
        let base = self.disp as i64 + (tile * ft.extent() as u64) as i64 + ft.origin() as i64;
        for &(off, len) in ft.blocks() {
            if skip < len as u64 {
                return (base + off as i64) as u64 + skip;
            }
            skip -= len as u64;
        }
        base as u64
    }

    /// The view position (etypes) of the first data byte at or after file
    /// byte `byte` (MPI_SEEK_END, shared pointer after MPI_MODE_APPEND).
    pub fn position_of_byte(&self, byte: u64) -> u64 {
        let ft = &self.filetype;
        let size = ft.size() as u64;
        let extent = ft.extent() as u64;
        if byte <= self.disp || size == 0 || extent == 0 {
            return 0;
        }
        let rel = byte - self.disp;
        let tile = rel / extent;
        let within = (rel % extent) as i64;
        let mut data = tile * size;
        for &(off, len) in ft.blocks() {
            let s = ft.origin() as i64 + off as i64;
            if within >= s + len as i64 {
                data += len as u64;
            } else if within > s {
                data += (within - s) as u64;
            }
        }
        data.div_ceil(self.esize().max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(ft: Datatype, disp: u64) -> View {
        let byte = Arc::new(Datatype::contiguous_bytes("MPI_BYTE", 1));
        View {
            disp,
            etype: byte,
            etype_h: sys::MPI_BYTE,
            filetype: Arc::new(ft),
            filetype_h: sys::MPI_BYTE,
            datarep: Datarep::Native,
        }
    }

    #[test]
    fn runs_of_a_strided_filetype() {
        // 2 bytes of every 8, at 4..6: a vector's tile
        let v = view(Datatype::new("v", &[(4, 2)], 8), 100);
        assert_eq!(v.runs(0, 5), vec![(104, 2), (112, 2), (120, 1)]);
        assert_eq!(v.runs(3, 2), vec![(113, 1), (120, 1)]);
        assert_eq!(v.byte_offset(3), 113);
        assert_eq!(v.position_of_byte(113), 3);
        assert_eq!(v.position_of_byte(106), 2);
        assert_eq!(v.position_of_byte(0), 0);
        // a dense one: one run
        let d = view(Datatype::contiguous_bytes("c", 4), 10);
        assert_eq!(d.runs(6, 9), vec![(16, 9)]);
        // adjacent blocks of consecutive tiles merge
        let e = view(Datatype::new("e", &[(0, 2), (4, 4)], 8), 0);
        assert_eq!(e.runs(0, 12), vec![(0, 2), (4, 6), (12, 4)]);
    }

    #[test]
    fn datareps() {
        assert_eq!(Datarep::parse("native").unwrap(), Datarep::Native);
        assert_eq!(Datarep::parse("external32").unwrap(), Datarep::External32);
        assert_eq!(
            Datarep::parse("xdr").unwrap_err().class,
            sys::MPI_ERR_UNSUPPORTED_DATAREP
        );
    }
}
