//! The `vaced` executable's side of a host process (run as `vaced-host`
//! with [`super::host::ENV_HOSTED`] set): load the program's libraries into
//! the process's global scope ([`Image::load_libraries`]), which brings in
//! the program's own libvaced, and find the host in that library
//! ([`super::host::vaced_host_main`]). Everything after that runs in the
//! program's libvaced, whose state the ranks share; this executable only
//! keeps its `exit`, `pthread_create` and `fork`, which it interposes for
//! the ranks.
use super::host::ENV_HOSTED;
use super::loader::Image;
use std::ffi::{c_int, c_void, CStr};

/// What the executable calls: the host's entry, and the library's
/// `vaced_rank_exit` and `vaced_rank_refuse` for its interposed calls.
pub struct HostStart {
    pub host_main: extern "C" fn() -> c_int,
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

/// Load `program`'s libraries and find the host in its libvaced.
pub fn prepare(program: &std::path::Path) -> Result<HostStart, String> {
    let libraries = Image::open(program)?.load_libraries()?;
    let host_main = lookup(&libraries, c"vaced_host_main")?;
    let rank_exit = lookup(&libraries, c"vaced_rank_exit")?;
    let rank_refuse = lookup(&libraries, c"vaced_rank_refuse")?;
    // SAFETY: the library exports these three with exactly these signatures
    // (`super::host`).
    unsafe {
        Ok(HostStart {
            host_main: std::mem::transmute::<*mut c_void, extern "C" fn() -> c_int>(host_main),
            rank_exit: std::mem::transmute::<*mut c_void, extern "C" fn(c_int)>(rank_exit),
            rank_refuse: std::mem::transmute::<
                *mut c_void,
                unsafe extern "C" fn(*const std::ffi::c_char) -> c_int,
            >(rank_refuse),
        })
    }
}

/// `name` in the first of `libraries` (or their dependencies) that has it.
fn lookup(libraries: &[*mut c_void], name: &CStr) -> Result<*mut c_void, String> {
    libraries
        .iter()
        // SAFETY: live dlopen handles and a C string.
        .map(|&h| unsafe { libc::dlsym(h, name.as_ptr()) })
        .find(|p| !p.is_null())
        .ok_or_else(|| {
            format!(
                "the program's MPI library has no {}: it is not vaced's, or an older vaced's \
                 (the many-ranks mode needs the program linked with this vaced's library)",
                name.to_string_lossy()
            )
        })
}
