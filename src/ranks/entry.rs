//! The `vaced` executable's side of a host process (run as `vaced-host`
//! with [`super::host::ENV_HOSTED`] set): load the first rank's copy of the
//! program, which brings in the program's own libvaced, and find the host
//! in that library ([`super::host::vaced_host_main`]). Everything after
//! that runs in the program's libvaced, whose state the ranks share; this
//! executable only keeps its `exit`, which it interposes for the ranks.
use super::host::{copies_dir, parse_block, ENV_HOSTED};
use super::loader::Image;
use std::ffi::{c_int, c_void, CStr};

/// What the executable calls: the host's entry, its arguments, and the
/// library's `vaced_rank_exit` for the executable's `exit`.
pub struct HostStart {
    pub host_main: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
    pub first_copy: *mut c_void,
    pub first_main: *mut c_void,
    pub rank_exit: extern "C" fn(c_int),
    pub rank_refuse: unsafe extern "C" fn(*const std::ffi::c_char) -> c_int,
}

/// The name the launcher gives a host process (its argv[0]).
pub const HOST_ARGV0: &str = "vaced-host";

/// Whether this process was started as a host.
pub fn is_host(argv0: &std::ffi::OsStr) -> bool {
    argv0 == HOST_ARGV0 && std::env::var_os(ENV_HOSTED).is_some()
}

/// Give SIGPIPE, SIGSEGV and SIGBUS their default dispositions back (Rust's
/// start-up ignores the first and catches the others; a C or Fortran
/// program starts with neither).
pub fn default_signals() {
    for sig in [libc::SIGPIPE, libc::SIGSEGV, libc::SIGBUS] {
        // SAFETY: installing SIG_DFL for a signal is always sound.
        unsafe { libc::signal(sig, libc::SIG_DFL) };
    }
}

/// Load the first rank's copy of `program` and find the host in its
/// libvaced.
pub fn prepare(program: &std::path::Path) -> Result<HostStart, String> {
    let spec = std::env::var(ENV_HOSTED).unwrap_or_default();
    let (first, _) =
        parse_block(&spec).ok_or_else(|| format!("{ENV_HOSTED}={spec:?}: want <first>,<count>"))?;
    let dir = copies_dir(first);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let copy = Image::open(program, &dir).and_then(|image| {
        image.load_libraries()?;
        image.load(first)
    });
    let _ = std::fs::remove_dir(&dir);
    let copy = copy?;
    let host_main = lookup(copy.handle, c"vaced_host_main")?;
    let rank_exit = lookup(copy.handle, c"vaced_rank_exit")?;
    let rank_refuse = lookup(copy.handle, c"vaced_rank_refuse")?;
    // SAFETY: the library exports these three with exactly these signatures
    // (`super::host`).
    unsafe {
        Ok(HostStart {
            host_main: std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
            >(host_main),
            first_copy: copy.handle,
            first_main: copy.main as *mut c_void,
            rank_exit: std::mem::transmute::<*mut c_void, extern "C" fn(c_int)>(rank_exit),
            rank_refuse: std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*const std::ffi::c_char) -> c_int,
            >(rank_refuse),
        })
    }
}

fn lookup(handle: *mut c_void, name: &CStr) -> Result<*mut c_void, String> {
    // SAFETY: a live dlopen handle and a C string.
    let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if p.is_null() {
        Err(format!(
            "the program's MPI library has no {}: it is not vaced's, or an older vaced's \
             (the many-ranks mode needs the program linked with this vaced's library)",
            name.to_string_lossy()
        ))
    } else {
        Ok(p)
    }
}
