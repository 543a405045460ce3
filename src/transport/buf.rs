//! User buffers handed down from the ABI: raw memory the caller promises stays
//! valid (and, for receives, untouched) until the request completes.

/// Bytes to send, borrowed from user memory.
pub struct SendBuf {
    ptr: *const u8,
    len: usize,
}

impl SendBuf {
    /// # Safety
    /// `ptr` must point to `len` readable bytes that stay valid and unchanged
    /// until the operation using this buffer completes.
    pub unsafe fn from_raw(ptr: *const u8, len: usize) -> SendBuf {
        SendBuf { ptr, len }
    }
    /// No bytes.
    pub fn empty() -> SendBuf {
        SendBuf {
            ptr: std::ptr::null(),
            len: 0,
        }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }
    /// `len` bytes that are not there: a replay (see `crate::replay`) sends
    /// lengths, never data.
    pub fn phantom(len: usize) -> SendBuf {
        SendBuf {
            ptr: std::ptr::null(),
            len,
        }
    }
    pub fn is_phantom(&self) -> bool {
        self.ptr.is_null() && self.len > 0
    }
    pub fn as_slice(&self) -> &[u8] {
        if self.len == 0 || self.ptr.is_null() {
            return &[];
        }
        // SAFETY: by the `from_raw` contract `ptr` points to `len` readable
        // bytes that stay valid and unchanged while this buffer is in use.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// Where received bytes go, borrowed from user memory.
pub struct RecvBuf {
    ptr: *mut u8,
    len: usize,
}

impl RecvBuf {
    /// # Safety
    /// `ptr` must point to `len` writable bytes that stay valid until the
    /// operation using this buffer completes.
    pub unsafe fn from_raw(ptr: *mut u8, len: usize) -> RecvBuf {
        RecvBuf { ptr, len }
    }
    /// Room for `len` bytes that is not there: a replay's receive, or one
    /// another library mirrors (`abi::engine_api`): nothing is stored; the
    /// status counts the bytes a real buffer would have taken.
    pub fn phantom(len: usize) -> RecvBuf {
        RecvBuf {
            ptr: std::ptr::null_mut(),
            len,
        }
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.len == 0 || self.ptr.is_null() {
            return &mut [];
        }
        // SAFETY: by the `from_raw` contract `ptr` points to `len` writable
        // bytes valid while this buffer is in use, and nothing else accesses
        // them meanwhile; `&mut self` makes this the only slice.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_null_buffers_give_empty_slices() {
        // SAFETY: a zero-length buffer is never dereferenced.
        let s = unsafe { SendBuf::from_raw(std::ptr::null(), 0) };
        assert_eq!(s.as_slice(), &[] as &[u8]);
        // SAFETY: as above.
        let mut r = unsafe { RecvBuf::from_raw(std::ptr::null_mut(), 0) };
        assert_eq!(r.as_mut_slice().len(), 0);
        assert!(s.is_empty() && r.is_empty());
    }

    #[test]
    fn slices_see_user_memory() {
        let data = [1u8, 2, 3, 4];
        // SAFETY: `data` outlives `s` and is not changed.
        let s = unsafe { SendBuf::from_raw(data.as_ptr(), data.len()) };
        assert_eq!(s.as_slice(), &[1, 2, 3, 4]);
        assert_eq!(s.addr(), data.as_ptr() as u64);
        let mut out = [0u8; 3];
        {
            // SAFETY: `out` outlives `r` and is only accessed through it.
            let mut r = unsafe { RecvBuf::from_raw(out.as_mut_ptr(), out.len()) };
            r.as_mut_slice().copy_from_slice(&[7, 8, 9]);
            assert_eq!(r.len(), 3);
        }
        assert_eq!(out, [7, 8, 9]);
    }
}
