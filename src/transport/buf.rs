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
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn addr(&self) -> u64 {
        self.ptr as u64
    }
    pub fn as_slice(&self) -> &[u8] {
        todo!()
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
        todo!()
    }
}
