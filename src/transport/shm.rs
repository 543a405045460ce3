//! POSIX shared-memory plumbing: named objects (`shm_open`, `shm_unlink`) and
//! shared mappings, every error naming the object it concerns.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `err` with `what` (naming the object and the step) in front, same kind.
pub fn context(what: impl std::fmt::Display, err: io::Error) -> io::Error {
    io::Error::new(err.kind(), format!("{what}: {err}"))
}

/// Check a shared-memory object name ("/name", no other '/', at most 255 bytes).
pub fn c_name(name: &str) -> io::Result<CString> {
    let ok = name.len() >= 2
        && name.len() <= 255
        && name.starts_with('/')
        && !name[1..].contains('/')
        && !name.contains('\0');
    if !ok {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "bad shared-memory name {name:?}: want \"/name\" (no other '/', at most 255 bytes)"
            ),
        ));
    }
    Ok(CString::new(name).expect("checked for NUL above"))
}

/// `shm_open(name, flags, 0600)`.
pub fn open(name: &str, flags: libc::c_int) -> io::Result<OwnedFd> {
    let c = c_name(name)?;
    // SAFETY: `c` is a valid NUL-terminated string; shm_open has no other
    // memory arguments.
    let fd = unsafe { libc::shm_open(c.as_ptr(), flags | libc::O_CLOEXEC, 0o600) };
    if fd < 0 {
        return Err(context(
            format_args!("shm_open {name}"),
            io::Error::last_os_error(),
        ));
    }
    // SAFETY: `fd` was just returned by shm_open and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `shm_unlink(name)`.
pub fn unlink(name: &str) -> io::Result<()> {
    let c = c_name(name)?;
    // SAFETY: `c` is a valid NUL-terminated string.
    if unsafe { libc::shm_unlink(c.as_ptr()) } != 0 {
        return Err(context(
            format_args!("shm_unlink {name}"),
            io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Size in bytes of the object behind `fd`.
pub fn size(fd: &OwnedFd, name: &str) -> io::Result<u64> {
    Ok(stat(fd, name)?.st_size as u64)
}

/// The object's identity (device, inode) and size.
pub fn identity(fd: &OwnedFd, name: &str) -> io::Result<((u64, u64), u64)> {
    let st = stat(fd, name)?;
    Ok(((st.st_dev, st.st_ino), st.st_size as u64))
}

fn stat(fd: &OwnedFd, name: &str) -> io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is a valid value of this plain C struct.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(context(
            format_args!("fstat {name}"),
            io::Error::last_os_error(),
        ));
    }
    Ok(st)
}

/// Give the object `len` bytes. Its pages are allocated when first touched
/// (most of a large job's inbox rings never are, and allocating them up front
/// cost more than the rest of a 1024-rank start-up), so the file system must
/// have `len` bytes free now: a full /dev/shm is an error here rather than a
/// SIGBUS later (unless something else fills it meanwhile).
pub fn allocate(fd: &OwnedFd, name: &str, len: u64) -> io::Result<()> {
    let free = free_bytes(fd, name)?;
    if free < len {
        return Err(context(
            format_args!("{name} needs {len} bytes but its file system has only {free} free (is /dev/shm big enough?)"),
            io::Error::from_raw_os_error(libc::ENOSPC),
        ));
    }
    // SAFETY: plain syscall on an open fd.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), len as libc::off_t) } != 0 {
        return Err(context(
            format_args!("ftruncate {name} to {len} bytes"),
            io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Bytes free for us on the file system holding the object behind `fd`.
fn free_bytes(fd: &OwnedFd, name: &str) -> io::Result<u64> {
    // SAFETY: an all-zero `statvfs` is a valid value of this plain C struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open and `st` is a valid out-pointer.
    if unsafe { libc::fstatvfs(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(context(
            format_args!("fstatvfs {name}"),
            io::Error::last_os_error(),
        ));
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// A shared read-write mapping of a whole object, unmapped on drop.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain memory valid in every thread of the process;
// what is stored in it is accessed through atomics or raw-pointer copies
// ordered by atomics (see the users).
unsafe impl Send for Mapping {}
// SAFETY: as above; `Mapping` itself hands out only raw pointers.
unsafe impl Sync for Mapping {}

impl Mapping {
    pub fn new(fd: &OwnedFd, name: &str, len: usize) -> io::Result<Mapping> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("mmap {name}: empty object"),
            ));
        }
        // SAFETY: a fresh shared mapping chosen by the kernel; no existing
        // memory is affected.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(context(
                format_args!("mmap {name} ({len} bytes)"),
                io::Error::last_os_error(),
            ));
        }
        Ok(Mapping {
            ptr: ptr.cast(),
            len,
        })
    }
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly what mmap returned; nothing derived
        // from the mapping outlives `self` (borrows are tied to its owner).
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
        }
    }
}
