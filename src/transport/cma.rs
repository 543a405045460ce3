//! Single-copy transfers: read another rank's memory with process_vm_readv.
use super::shm::context;
use std::io;
use std::sync::OnceLock;

/// Let any process of ours read this one's memory (PR_SET_PTRACER_ANY).
/// Without the Yama LSM the call fails with EINVAL and nothing is needed.
pub fn allow_peers() {
    // SAFETY: prctl with integer arguments only; it changes no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0);
    }
}

/// Does CMA work between sibling processes on this machine? Probed once per
/// process (calls [`allow_peers`], then a forked child reads from us).
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(probe)
}

/// [`pull`] by process `own_pid` (the caller's own id, which it knows): a
/// sender in the same process (a rank of the same host, in the many-ranks
/// mode) is read with a plain copy, no system call.
pub fn pull_as(own_pid: u32, pid: u32, addr: u64, dst: &mut [u8]) -> io::Result<()> {
    if pid != own_pid {
        return pull(pid, addr, dst);
    }
    // SAFETY: the single-copy protocol hands out the address of a send
    // buffer of a rank of this process, which MPI keeps valid and unchanged
    // until the transfer completes (the sender waits for it); it is not
    // the receiver's buffer `dst`.
    unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, dst.as_mut_ptr(), dst.len()) };
    Ok(())
}

/// Copy `dst.len()` bytes from `addr` in process `pid` into `dst`.
pub fn pull(pid: u32, addr: u64, dst: &mut [u8]) -> io::Result<()> {
    let mut done = 0usize;
    while done < dst.len() {
        let rest = &mut dst[done..];
        let local = libc::iovec {
            iov_base: rest.as_mut_ptr().cast(),
            iov_len: rest.len(),
        };
        let remote = libc::iovec {
            iov_base: (addr + done as u64) as *mut libc::c_void,
            iov_len: rest.len(),
        };
        // SAFETY: `local` describes `rest`, which we own mutably; the remote
        // iovec is only interpreted by the kernel in the other process, which
        // checks it and reports EFAULT on a bad address.
        let n = unsafe { libc::process_vm_readv(pid as libc::pid_t, &local, 1, &remote, 1, 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(context(
                format_args!(
                    "process_vm_readv of {} bytes at {:#x} in pid {pid}",
                    rest.len(),
                    addr + done as u64
                ),
                e,
            ));
        }
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "process_vm_readv of {} bytes at {:#x} in pid {pid}: nothing read",
                    rest.len(),
                    addr + done as u64
                ),
            ));
        }
        done += n as usize;
    }
    Ok(())
}

/// Fork a child that reads a word from us; it reports through a pipe.
fn probe() -> bool {
    allow_peers();
    let word: u64 = 0x5641_4345_4443_4d41;
    let addr = &word as *const u64 as u64;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `fds` is a valid out-array of two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return false;
    }
    let [rd, wr] = fds;
    // SAFETY: the child only makes async-signal-safe system calls
    // (getppid, process_vm_readv, write, _exit) before exiting, so forking a
    // possibly multi-threaded process is sound.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let mut got: u64 = 0;
        let local = libc::iovec {
            iov_base: (&mut got as *mut u64).cast(),
            iov_len: 8,
        };
        let remote = libc::iovec {
            iov_base: addr as *mut libc::c_void,
            iov_len: 8,
        };
        // SAFETY: see above; `local` points to the child's `got`, the remote
        // address is `word` in the parent, which waits for us on the pipe.
        unsafe {
            let n = libc::process_vm_readv(libc::getppid(), &local, 1, &remote, 1, 0);
            let ok: u8 = (n == 8 && got == 0x5641_4345_4443_4d41) as u8;
            libc::write(wr, (&ok as *const u8).cast(), 1);
            libc::_exit(0);
        }
    }
    // SAFETY: closing our copy of the write end (the child keeps its own).
    unsafe { libc::close(wr) };
    let mut ok = 0u8;
    let n = if pid > 0 {
        loop {
            // SAFETY: reading one byte into `ok` from our pipe end.
            let n = unsafe { libc::read(rd, (&mut ok as *mut u8).cast(), 1) };
            if n >= 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
                break n;
            }
        }
    } else {
        0
    };
    // SAFETY: closing our read end; reaping our own child (its status is
    // not needed; an ECHILD because someone else reaped it is harmless).
    unsafe {
        libc::close(rd);
        if pid > 0 {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
    std::hint::black_box(&word);
    n == 1 && ok == 1
}
