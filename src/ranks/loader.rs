//! Private copies of the program, one per rank: the executable (a PIE) is
//! copied to a file of the host's own, its "this is an executable" flag
//! (`DF_1_PIE`) cleared so that the dynamic linker accepts it as a shared
//! object, and the copy loaded with `dlopen`. Each copy has its own global
//! and static data (C statics, Fortran COMMON blocks, SAVE and module
//! variables), while the libraries it needs (libc, the Fortran runtime,
//! libvaced) are loaded once for the whole host. The copy's file is removed
//! once loaded (the mapping outlives it).
//!
//! The program's own libraries are loaded first, into the process's global
//! scope ([`Image::load_libraries`]): a copy's copy relocations (a PIE
//! keeps its own copy of the data it uses from a library, e.g.
//! `MPI_UNWEIGHTED`, initialized from the library's at load) must find the
//! library's definition, not the copy's own, which comes first in the
//! copy's local scope.
//!
//! `main` is found by name: our compiler wrappers export it
//! (`-Wl,--export-dynamic-symbol=main`); for a program linked otherwise it
//! is looked up in the file's own symbol table, when it was not stripped.
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A program's `main`.
pub type MainFn = unsafe extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) -> c_int;

/// The program, read once and made loadable.
pub struct Image {
    path: PathBuf,
    bytes: Vec<u8>,
    /// `main`'s address relative to the load base, from the symbol table
    /// (used when `main` is not exported).
    main_offset: Option<u64>,
}

/// One rank's loaded copy.
pub struct Copy {
    pub handle: *mut c_void,
    pub main: MainFn,
}

const ET_DYN: u16 = 3;
const PT_DYNAMIC: u32 = 2;
const DT_NULL: i64 = 0;
const DT_FLAGS_1: i64 = 0x6fff_fffb;
const DF_1_PIE: u64 = 0x0800_0000;
const SHT_SYMTAB: u32 = 2;
const PT_LOAD: u32 = 1;
const DT_NEEDED: i64 = 1;
const DT_STRTAB: i64 = 5;
const DT_RPATH: i64 = 15;
const DT_RUNPATH: i64 = 29;

fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(off..off + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(off..off + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(off..off + 8)?.try_into().ok()?))
}

impl Image {
    /// Read `path` and check that it can be loaded once per rank.
    pub fn open(path: &Path) -> Result<Image, String> {
        let name = path.display();
        let mut bytes =
            std::fs::read(path).map_err(|e| format!("cannot read the program {name}: {e}"))?;
        if !bytes.starts_with(b"\x7fELF\x02\x01") {
            return Err(format!(
                "{name} is not a 64-bit little-endian ELF executable: the many-ranks mode loads \
                 the program itself (not a script) once per rank"
            ));
        }
        if !bytes.windows(b"libvaced.".len()).any(|w| w == b"libvaced.") {
            return Err(format!(
                "{name} is not linked with vaced's MPI library: the many-ranks mode hosts \
                 programs built with vaced's mpicc / mpif90 only; run it with one process per rank"
            ));
        }
        if u16_at(&bytes, 16) != Some(ET_DYN) {
            return Err(format!(
                "{name} is not position-independent (it was linked with -no-pie): the \
                 many-ranks mode loads one copy of the program per rank; rebuild it as a PIE \
                 (the default of vaced's mpicc and of Debian's compilers)"
            ));
        }
        clear_pie_flag(&mut bytes).ok_or_else(|| format!("{name}: malformed ELF headers"))?;
        let main_offset = symtab_main(&bytes);
        Ok(Image {
            path: path.to_path_buf(),
            bytes,
            main_offset,
        })
    }

    /// Load the libraries the program needs (its DT_NEEDED entries, found
    /// through its RUNPATH / RPATH, then the dynamic linker's own search)
    /// into the process's global scope, before any copy. Their handles, in
    /// that order.
    pub fn load_libraries(&self) -> Result<Vec<*mut c_void>, String> {
        let dynamic = dynamic_entries(&self.bytes)
            .ok_or_else(|| format!("{}: malformed dynamic section", self.path.display()))?;
        let origin = self
            .path
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let mut dirs: Vec<PathBuf> = Vec::new();
        for (tag, s) in &dynamic {
            if *tag == DT_RUNPATH || *tag == DT_RPATH {
                for d in s.split(':').filter(|d| !d.is_empty()) {
                    let d = d
                        .replace("$ORIGIN", &origin.to_string_lossy())
                        .replace("${ORIGIN}", &origin.to_string_lossy());
                    dirs.push(PathBuf::from(d));
                }
            }
        }
        let mut handles = Vec::new();
        for (tag, name) in &dynamic {
            if *tag != DT_NEEDED {
                continue;
            }
            let found = dirs.iter().map(|d| d.join(name)).find(|p| p.is_file());
            let path = found.unwrap_or_else(|| PathBuf::from(name));
            let c = CString::new(path.as_os_str().as_bytes())
                .map_err(|_| format!("a library name holds a NUL byte: {name:?}"))?;
            // SAFETY: dlopen with a valid C string; the library's
            // constructors run as they would at the program's start-up.
            let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
            if h.is_null() {
                return Err(format!(
                    "cannot load {name}, which {} needs: {}",
                    self.path.display(),
                    dlerror()
                ));
            }
            handles.push(h);
        }
        Ok(handles)
    }

    /// Load the copy for `rank`, through a file in `dir` (which must exist;
    /// the file is removed once loaded).
    pub fn load(&self, dir: &Path, rank: u32) -> Result<Copy, String> {
        let file = dir.join(format!("rank-{rank}"));
        std::fs::write(&file, &self.bytes).map_err(|e| {
            format!(
                "cannot write a copy of the program to {}: {e}",
                file.display()
            )
        })?;
        let c = CString::new(file.as_os_str().as_bytes()).expect("no NUL in a temp path");
        // SAFETY: dlopen with a valid C string; the copy's constructors run
        // now, as the program's would at start-up.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        let _ = std::fs::remove_file(&file);
        if handle.is_null() {
            return Err(format!(
                "cannot load a copy of {} for rank {rank}: {}",
                self.path.display(),
                dlerror()
            ));
        }
        let main = self.find_main(handle).ok_or_else(|| {
            format!(
                "{}: cannot find its main function: rebuild it with vaced's mpicc / mpif90 \
                 (they export main), or do not strip it",
                self.path.display()
            )
        })?;
        Ok(Copy { handle, main })
    }

    fn find_main(&self, handle: *mut c_void) -> Option<MainFn> {
        // SAFETY: `handle` is a live dlopen handle, the name a C string.
        let sym = unsafe { libc::dlsym(handle, c"main".as_ptr()) };
        let addr = if !sym.is_null() && owns(handle, sym) {
            sym as usize
        } else {
            let off = self.main_offset?;
            base(handle)? + off as usize
        };
        // SAFETY: `addr` is the copy's `main` (its dynamic symbol, or its
        // symbol table entry relocated by the copy's load base), a function
        // with C's main signature.
        Some(unsafe { std::mem::transmute::<usize, MainFn>(addr) })
    }
}

/// The copy's load base (`l_addr`).
fn base(handle: *mut c_void) -> Option<usize> {
    let mut map: *mut libc::c_void = std::ptr::null_mut();
    // SAFETY: RTLD_DI_LINKMAP writes a `struct link_map *` into `map`.
    let rc = unsafe {
        libc::dlinfo(
            handle,
            libc::RTLD_DI_LINKMAP,
            &mut map as *mut *mut c_void as *mut c_void,
        )
    };
    if rc != 0 || map.is_null() {
        return None;
    }
    // SAFETY: glibc's link_map begins with `ElfW(Addr) l_addr`.
    Some(unsafe { *(map as *const usize) })
}

/// Whether `sym` was found in the copy itself (dlsym also searches the
/// copy's libraries, where some other object may define `main`).
fn owns(handle: *mut c_void, sym: *mut c_void) -> bool {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr fills `info` for an address.
    if unsafe { libc::dladdr(sym, &mut info) } == 0 {
        return false;
    }
    base(handle).is_some_and(|b| b == info.dli_fbase as usize)
}

fn dlerror() -> String {
    // SAFETY: dlerror returns null or a C string valid until the next call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: as above.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

/// The program headers: (type, file offset of the header) each.
fn program_headers(b: &[u8]) -> Option<Vec<(u32, usize)>> {
    let phoff = u64_at(b, 32)? as usize;
    let phentsize = u16_at(b, 54)? as usize;
    let phnum = u16_at(b, 56)? as usize;
    (0..phnum)
        .map(|i| {
            let ph = phoff + i * phentsize;
            Some((u32_at(b, ph)?, ph))
        })
        .collect()
}

/// The dynamic section's entries up to DT_NULL: (file offset of the
/// entry, tag, value) each.
fn dynamic_section(b: &[u8]) -> Option<Vec<(usize, i64, u64)>> {
    let mut out = Vec::new();
    for (kind, ph) in program_headers(b)? {
        if kind != PT_DYNAMIC {
            continue;
        }
        let off = u64_at(b, ph + 8)? as usize;
        let size = u64_at(b, ph + 32)? as usize;
        let mut d = off;
        while d + 16 <= off + size {
            let tag = u64_at(b, d)? as i64;
            if tag == DT_NULL {
                break;
            }
            out.push((d, tag, u64_at(b, d + 8)?));
            d += 16;
        }
    }
    Some(out)
}

/// Clear DF_1_PIE in the dynamic section. None if the headers are out of
/// bounds.
fn clear_pie_flag(b: &mut [u8]) -> Option<()> {
    for (d, tag, v) in dynamic_section(b)? {
        if tag == DT_FLAGS_1 {
            b.get_mut(d + 8..d + 16)?
                .copy_from_slice(&(v & !DF_1_PIE).to_le_bytes());
        }
    }
    Some(())
}

/// The file offset of virtual address `vaddr` (through the PT_LOAD
/// segments).
fn file_offset(b: &[u8], vaddr: u64) -> Option<usize> {
    for (kind, ph) in program_headers(b)? {
        if kind != PT_LOAD {
            continue;
        }
        let (off, va, filesz) = (u64_at(b, ph + 8)?, u64_at(b, ph + 16)?, u64_at(b, ph + 32)?);
        if vaddr >= va && vaddr < va + filesz {
            return Some((vaddr - va + off) as usize);
        }
    }
    None
}

/// The string-valued entries of the dynamic section (DT_NEEDED, DT_RPATH,
/// DT_RUNPATH), in order, with their strings.
fn dynamic_entries(b: &[u8]) -> Option<Vec<(i64, String)>> {
    let entries = dynamic_section(b)?;
    let Some(&(_, _, strtab)) = entries.iter().find(|e| e.1 == DT_STRTAB) else {
        return Some(Vec::new());
    };
    let base = file_offset(b, strtab)?;
    entries
        .iter()
        .filter(|e| matches!(e.1, DT_NEEDED | DT_RPATH | DT_RUNPATH))
        .map(|&(_, tag, v)| {
            let start = base + v as usize;
            let end = start + b.get(start..)?.iter().position(|&c| c == 0)?;
            Some((tag, String::from_utf8_lossy(&b[start..end]).into_owned()))
        })
        .collect()
}

/// `main`'s value in the section symbol table, if the file has one.
fn symtab_main(b: &[u8]) -> Option<u64> {
    let shoff = u64_at(b, 40)? as usize;
    let shentsize = u16_at(b, 58)? as usize;
    let shnum = u16_at(b, 60)? as usize;
    for i in 0..shnum {
        let sh = shoff + i * shentsize;
        if u32_at(b, sh + 4)? != SHT_SYMTAB {
            continue;
        }
        let off = u64_at(b, sh + 24)? as usize;
        let size = u64_at(b, sh + 32)? as usize;
        let link = u32_at(b, sh + 40)? as usize;
        let entsize = u64_at(b, sh + 56)? as usize;
        let strsh = shoff + link * shentsize;
        let stroff = u64_at(b, strsh + 24)? as usize;
        if entsize < 24 {
            return None;
        }
        for s in (off..off + size).step_by(entsize) {
            let name = u32_at(b, s)? as usize;
            let info = *b.get(s + 4)?;
            let value = u64_at(b, s + 8)?;
            let start = stroff + name;
            let end = start + b.get(start..)?.iter().position(|&c| c == 0)?;
            if &b[start..end] == b"main" && info & 0xf == 2 && value != 0 {
                return Some(value);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// `cc SRC -o OUT ARGS...` in a fresh temporary directory.
    fn build(name: &str, src: &str, args: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vaced-loader-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, src).unwrap();
        let out = dir.join(name);
        let st = Command::new("cc")
            .arg(&c)
            .arg("-o")
            .arg(&out)
            .args(args)
            .status()
            .unwrap();
        assert!(st.success());
        out
    }

    const PROG: &str = "int counter = 41; int main(void) { return ++counter; }\n";

    #[test]
    fn reads_what_a_pie_needs_and_where_its_main_is() {
        let exe = build("pie", PROG, &["-Wl,-rpath,/opt/somewhere:$ORIGIN/lib"]);
        let b = std::fs::read(&exe).unwrap();
        let dynamic = dynamic_entries(&b).unwrap();
        assert!(
            dynamic.contains(&(DT_NEEDED, "libc.so.6".to_string())),
            "{dynamic:?}"
        );
        assert!(
            dynamic
                .iter()
                .any(|(t, s)| (*t == DT_RUNPATH || *t == DT_RPATH)
                    && s == "/opt/somewhere:$ORIGIN/lib"),
            "{dynamic:?}"
        );
        // not exported, but in the symbol table
        assert!(symtab_main(&b).is_some());
        let mut patched = b.clone();
        clear_pie_flag(&mut patched).unwrap();
        assert_eq!(patched.len(), b.len());
        assert_ne!(patched, b, "the DF_1_PIE flag was not found");
        let mut again = patched.clone();
        clear_pie_flag(&mut again).unwrap();
        assert_eq!(again, patched);
    }

    #[test]
    fn refuses_what_it_cannot_host() {
        // not linked with vaced's library
        let exe = build("plain", PROG, &[]);
        let e = Image::open(&exe).err().unwrap();
        assert!(e.contains("not linked with vaced's MPI library"), "{e}");
        // a script
        let script = exe.with_file_name("script.sh");
        std::fs::write(&script, "#!/bin/sh\necho libvaced.so\n").unwrap();
        let e = Image::open(&script).err().unwrap();
        assert!(
            e.contains("not a 64-bit little-endian ELF executable"),
            "{e}"
        );
        // not position-independent (named after our library, so that only
        // the missing PIE is wrong)
        let exe = build(
            "nopie",
            "const char *lib = \"libvaced.so\";\nint main(void) { return lib[0]; }\n",
            &["-no-pie"],
        );
        let e = Image::open(&exe).err().unwrap();
        assert!(e.contains("not position-independent"), "{e}");
    }

    #[test]
    fn each_copy_has_its_own_globals() {
        // The sniff for our library's name is a string in the file.
        let src = format!("const char *lib = \"libvaced.so\";\n{PROG}");
        let exe = build("copies", &src, &[]);
        let dir = exe.parent().unwrap().join("copies.d");
        std::fs::create_dir_all(&dir).unwrap();
        let image = Image::open(&exe).unwrap();
        let (a, b) = (image.load(&dir, 0).unwrap(), image.load(&dir, 1).unwrap());
        // SAFETY: the copies' main takes no arguments it reads.
        let run = |c: &Copy| unsafe { (c.main)(0, std::ptr::null_mut(), std::ptr::null_mut()) };
        assert_eq!(
            (run(&a), run(&a), run(&b), run(&a), run(&b)),
            (42, 43, 42, 44, 43)
        );
        // the copies' files are gone once loaded
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }
}
