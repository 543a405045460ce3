//! Single-copy transfers: read another rank's memory with process_vm_readv.
use std::io;

/// Let any process of ours read this one's memory (PR_SET_PTRACER_ANY).
pub fn allow_peers() {
    todo!()
}
/// Does CMA work between sibling processes on this machine?
pub fn available() -> bool {
    todo!()
}
/// Copy `dst.len()` bytes from `addr` in process `pid` into `dst`.
pub fn pull(pid: u32, addr: u64, dst: &mut [u8]) -> io::Result<()> {
    let mut done = 0;
    while done < dst.len() {
        let local = libc::iovec {
            iov_base: dst[done..].as_mut_ptr() as *mut libc::c_void,
            iov_len: dst.len() - done,
        };
        let remote = libc::iovec {
            iov_base: (addr as usize + done) as *mut libc::c_void,
            iov_len: dst.len() - done,
        };
        // SAFETY: local describes writable memory we own; the kernel checks remote.
        let n = unsafe { libc::process_vm_readv(pid as i32, &local, 1, &remote, 1, 0) };
        if n <= 0 {
            return Err(io::Error::last_os_error());
        }
        done += n as usize;
    }
    Ok(())
}
