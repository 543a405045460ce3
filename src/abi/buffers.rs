//! Raw C pointers -> checked Rust values: user message buffers into p2p
//! buffers (directly when the datatype is contiguous, through a packed copy
//! or a staging buffer otherwise), out-arguments, request and status arrays,
//! C strings.
use crate::abi::typed_mem::{data_start, elems};
use crate::abi::{MPI_STATUSES_IGNORE, MPI_STATUS_IGNORE};
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::request::Staging;
use crate::mpi::state::{RecvArgs, RecvTarget, SendArgs, SendPayload};
use crate::sys::{self, MPI_Request, MPI_Status};
use crate::transport::{RecvBuf, SendBuf};
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::NonNull;

/// `p`, or a dangling non-null pointer for an empty buffer (p2p may build
/// slices from it, and a slice pointer must never be null).
fn or_dangling(p: *const u8, len: usize) -> *const u8 {
    if len == 0 {
        NonNull::<u8>::dangling().as_ptr()
    } else {
        p
    }
}

/// # Safety
/// `len == 0`, or `p` points to `len` readable bytes that live for `'a`.
pub(crate) unsafe fn user_bytes<'a>(p: *const c_void, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: non-empty, so by the contract p is valid for len bytes.
    unsafe { std::slice::from_raw_parts(p as *const u8, len) }
}

/// The send payload of the packed bytes `v` (kept alive by the request).
pub(crate) fn packed_payload(v: Vec<u8>) -> SendPayload<SendBuf> {
    // SAFETY: the Vec's heap buffer does not move when the Vec moves into the
    // request entry (`keep`), which holds it, unmodified, until the send is
    // complete (or, for a freed request, until MPI_Finalize).
    let buf = unsafe { SendBuf::from_raw(or_dangling(v.as_ptr(), v.len()), v.len()) };
    SendPayload { buf, keep: Some(v) }
}

/// What p2p sends for `a`: the user's buffer itself when the datatype is
/// contiguous, else a packed copy.
///
/// # Safety
/// `buf` holds `a.count` elements of `a.ty` (checked non-null unless empty)
/// and, per MPI, stays valid and unmodified until the send completes.
pub(crate) unsafe fn send_payload(buf: *const c_void, a: &SendArgs) -> SendPayload<SendBuf> {
    if a.ty.is_contiguous() {
        // SAFETY: contiguous: the a.bytes bytes at buf are the message; the
        // caller guarantees they stay valid until completion.
        let b = unsafe { SendBuf::from_raw(or_dangling(buf as *const u8, a.bytes), a.bytes) };
        return SendPayload { buf: b, keep: None };
    }
    // SAFETY: buf holds a.count elements of a.ty (caller).
    let src = unsafe { elems(buf, &a.ty, a.count) };
    packed_payload(a.ty.pack(src, a.count))
}

/// Where p2p receives for `a`: the user's buffer when the datatype is
/// contiguous, else a staging buffer unpacked into it on completion.
///
/// # Safety
/// `buf` has room for `a.count` elements of `a.ty` and, per MPI, stays valid
/// (and is not accessed by the program) until the receive completes.
pub(crate) unsafe fn recv_target(buf: *mut c_void, a: &RecvArgs) -> RecvTarget<RecvBuf> {
    if a.ty.is_contiguous() {
        let p = or_dangling(buf as *const u8, a.bytes) as *mut u8;
        // SAFETY: contiguous: a.bytes writable bytes at buf, valid until the
        // receive completes (caller's guarantee).
        let b = unsafe { RecvBuf::from_raw(p, a.bytes) };
        return RecvTarget {
            buf: b,
            staging: None,
        };
    }
    let mut tmp = vec![0u8; a.bytes];
    let p = or_dangling(tmp.as_mut_ptr(), tmp.len()) as *mut u8;
    // SAFETY: the staging Vec moves into the request entry without moving
    // its heap buffer, and stays there until the receive completes.
    let b = unsafe { RecvBuf::from_raw(p, a.bytes) };
    let dst = data_start(buf, &a.ty, a.count) as usize;
    let (span, ty, count) = (a.ty.span(a.count), a.ty.clone(), a.count);
    let deliver = Box::new(move |bytes: &[u8]| {
        if span == 0 {
            return;
        }
        // SAFETY: runs when the receive completes, while the user's buffer
        // is still valid and untouched by the program (caller's guarantee);
        // it covers span bytes.
        let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, span) };
        ty.unpack(bytes, out, count);
    });
    RecvTarget {
        buf: b,
        staging: Some(Staging { tmp, deliver }),
    }
}

/// An out-argument: MPI_ERR_ARG if null.
///
/// # Safety
/// `p` is null or valid for writes (and reads) of a `T` for `'a`.
pub(crate) unsafe fn out<'a, T>(p: *mut T, what: &str) -> MpiResult<&'a mut T> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null, and valid by the contract.
    Ok(unsafe { &mut *p })
}

/// An input pointer: MPI_ERR_ARG if null.
///
/// # Safety
/// `p` is null or valid for reads of a `T` for `'a`.
pub(crate) unsafe fn input<'a, T>(p: *const T, what: &str) -> MpiResult<&'a T> {
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, format!("null pointer passed as {what}"));
    }
    // SAFETY: non-null, and valid by the contract.
    Ok(unsafe { &*p })
}

/// A status argument to read (MPI_Get_count, MPI_Test_cancelled).
///
/// # Safety
/// `p` is null, MPI_STATUS_IGNORE or a valid status.
pub(crate) unsafe fn status_in<'a>(p: *const MPI_Status) -> MpiResult<&'a MPI_Status> {
    if std::ptr::eq(p, MPI_STATUS_IGNORE) {
        return fail(
            sys::MPI_ERR_ARG,
            "MPI_STATUS_IGNORE passed as status to read",
        );
    }
    // SAFETY: not the ignore marker; null is rejected by `input`.
    unsafe { input(p, "status") }
}

/// A request array of `count` entries.
///
/// # Safety
/// `p` is null or points to `count` requests valid for `'a`.
pub(crate) unsafe fn requests<'a>(
    p: *mut MPI_Request,
    count: c_int,
) -> MpiResult<&'a mut [MPI_Request]> {
    let n = match usize::try_from(count) {
        Ok(n) => n,
        Err(_) => {
            return fail(
                sys::MPI_ERR_COUNT,
                format!("invalid count {count} (negative)"),
            )
        }
    };
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        return fail(sys::MPI_ERR_ARG, "null pointer passed as array_of_requests");
    }
    // SAFETY: non-null and, by the contract, valid for n requests.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Store a status unless the caller ignores it (MPI_STATUS_IGNORE; a null
/// pointer is treated the same, as several MPI libraries do). Calls that
/// return one status leave its MPI_ERROR field as it was (MPI 3.1 section
/// 3.2.5: only the calls with an array of statuses set it), but for an
/// empty status (MPI_SUCCESS, as MPICH writes it).
///
/// # Safety
/// `p` is null, MPI_STATUS_IGNORE or valid for reads and writes of one
/// status.
pub(crate) unsafe fn put_status(p: *mut MPI_Status, st: &MPI_Status) {
    if p.is_null() || std::ptr::eq(p, MPI_STATUS_IGNORE) {
        return;
    }
    // SAFETY: a real status pointer, valid by the contract.
    let o = unsafe { &mut *p };
    if st.MPI_SOURCE == sys::MPI_ANY_SOURCE
        && st.MPI_TAG == sys::MPI_ANY_TAG
        && st.count_lo == 0
        && st.count_hi_and_cancelled == 0
    {
        // an empty status (inactive or null request) is empty in full
        o.MPI_ERROR = sys::MPI_SUCCESS;
    }
    o.MPI_SOURCE = st.MPI_SOURCE;
    o.MPI_TAG = st.MPI_TAG;
    o.count_lo = st.count_lo;
    o.count_hi_and_cancelled = st.count_hi_and_cancelled;
}

/// Store entry `i` of a status array unless it is MPI_STATUSES_IGNORE.
///
/// # Safety
/// `p` is null, MPI_STATUSES_IGNORE or an array with more than `i` entries.
pub(crate) unsafe fn put_status_at(p: *mut MPI_Status, i: usize, st: &MPI_Status) {
    if p.is_null() || std::ptr::eq(p, MPI_STATUSES_IGNORE) {
        return;
    }
    // SAFETY: a real array of more than i statuses, by the contract.
    unsafe { p.add(i).write(*st) }
}

/// Store entry `i` of an int array.
///
/// # Safety
/// `p` points to an array with more than `i` ints.
pub(crate) unsafe fn put_int_at(p: *mut c_int, i: usize, v: c_int) {
    // SAFETY: by the contract.
    unsafe { p.add(i).write(v) }
}

/// Copy `s` and a NUL into a C buffer of `cap` bytes (truncating); its length.
///
/// # Safety
/// `dst` is valid for writes of `cap` bytes (`cap` >= 1).
pub(crate) unsafe fn put_cstr(dst: *mut c_char, cap: usize, s: &str) -> c_int {
    let n = s.len().min(cap - 1);
    // SAFETY: n + 1 <= cap bytes, all within dst by the contract; the source
    // is a distinct Rust string.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr() as *const c_char, dst, n);
        dst.add(n).write(0);
    }
    n as c_int
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpi::comm::{Group, Source};
    use crate::mpi::datatype::TypeTable;
    use crate::mpi::status::make_status;
    use std::sync::Arc;

    fn send_args(ty: sys::MPI_Datatype, count: usize) -> SendArgs {
        let ty = TypeTable::new().get(ty).unwrap();
        SendArgs {
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0, 1])),
            ctx: 0,
            dest: Some(1),
            tag: 0,
            bytes: ty.packed_size(count),
            ty,
            count,
        }
    }

    fn recv_args(ty: sys::MPI_Datatype, count: usize) -> RecvArgs {
        let ty = TypeTable::new().get(ty).unwrap();
        RecvArgs {
            comm: sys::MPI_COMM_WORLD,
            group: Arc::new(Group::new(vec![0, 1])),
            ctx: 0,
            src: Source::Any,
            tag: None,
            bytes: ty.packed_size(count),
            ty,
            count,
        }
    }

    #[test]
    fn contiguous_send_uses_the_user_buffer() {
        let data = [1i32, 2, 3];
        let a = send_args(sys::MPI_INT, 3);
        // SAFETY: data holds 3 ints and outlives the payload.
        let p = unsafe { send_payload(data.as_ptr() as *const c_void, &a) };
        assert_eq!(p.buf.addr(), data.as_ptr() as u64);
        assert_eq!(p.buf.len(), 12);
        assert!(p.keep.is_none());
        // an empty null buffer becomes a dangling, non-null one
        let a = send_args(sys::MPI_INT, 0);
        // SAFETY: zero elements: the pointer is never read.
        let p = unsafe { send_payload(std::ptr::null(), &a) };
        assert_eq!(p.buf.len(), 0);
        assert_ne!(p.buf.addr(), 0);
    }

    #[test]
    fn non_contiguous_send_is_packed() {
        // two struct { short; int; } = {0x0201, pad, 0x06050403}, ...
        let mem: [u8; 16] = [
            1, 2, 0xee, 0xee, 3, 4, 5, 6, 11, 12, 0xee, 0xee, 13, 14, 15, 16,
        ];
        let a = send_args(sys::MPI_SHORT_INT, 2);
        // SAFETY: mem holds two MPI_SHORT_INT elements.
        let p = unsafe { send_payload(mem.as_ptr() as *const c_void, &a) };
        let keep = p.keep.as_ref().unwrap();
        assert_eq!(keep, &vec![1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16]);
        assert_eq!(p.buf.addr(), keep.as_ptr() as u64);
        assert_eq!(p.buf.len(), 12);
    }

    #[test]
    fn contiguous_receive_uses_the_user_buffer() {
        let mut mem = [0u8; 8];
        let a = recv_args(sys::MPI_DOUBLE, 1);
        // SAFETY: mem has room for one double and outlives the target.
        let t = unsafe { recv_target(mem.as_mut_ptr() as *mut c_void, &a) };
        assert_eq!(t.buf.addr(), mem.as_ptr() as u64);
        assert_eq!(t.buf.len(), 8);
        assert!(t.staging.is_none());
    }

    #[test]
    fn non_contiguous_receive_is_staged_and_unpacked() {
        let mut mem = [0xffu8; 32];
        let a = recv_args(sys::MPI_DOUBLE_INT, 2);
        // SAFETY: mem has room for two MPI_DOUBLE_INT elements (32 bytes)
        // and outlives the delivery below.
        let t = unsafe { recv_target(mem.as_mut_ptr() as *mut c_void, &a) };
        let mut stg = t.staging.unwrap();
        assert_eq!(stg.tmp.len(), 24);
        assert_eq!(t.buf.addr(), stg.tmp.as_ptr() as u64);
        assert_eq!(t.buf.len(), 24);
        // what p2p would have written: 24 packed bytes 1..=24
        for (i, b) in stg.tmp.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        (stg.deliver)(&stg.tmp);
        let mut expect: Vec<u8> = (1..=12).collect();
        expect.extend([0xff; 4]);
        expect.extend(13..=24);
        expect.extend([0xff; 4]);
        assert_eq!(mem.to_vec(), expect);
    }

    #[test]
    fn strings_are_truncated_and_terminated() {
        let mut buf = [0x55 as c_char; 4];
        // SAFETY: buf has 4 bytes.
        let n = unsafe { put_cstr(buf.as_mut_ptr(), 4, "hello") };
        assert_eq!(n, 3);
        assert_eq!(buf.map(|c| c as u8), *b"hel\0");
        // SAFETY: as above.
        let n = unsafe { put_cstr(buf.as_mut_ptr(), 4, "ok") };
        assert_eq!(n, 2);
        assert_eq!(buf.map(|c| c as u8)[..3], *b"ok\0");
    }

    #[test]
    fn statuses_are_written_unless_ignored() {
        let st = make_status(1, 2, 0, 3, false);
        let mut slot = make_status(9, 9, 9, 9, true);
        // SAFETY: the ignore markers and null are never written through;
        // slot is a valid status.
        unsafe {
            put_status(MPI_STATUS_IGNORE, &st);
            put_status(std::ptr::null_mut(), &st);
            put_status_at(MPI_STATUSES_IGNORE, 5, &st);
            put_status(&mut slot, &st);
        }
        assert_eq!((slot.MPI_SOURCE, slot.MPI_TAG, slot.count_lo), (1, 2, 3));
        let mut arr = [make_status(0, 0, 0, 0, false); 3];
        // SAFETY: arr has 3 entries.
        unsafe { put_status_at(arr.as_mut_ptr(), 2, &st) };
        assert_eq!(arr[2].MPI_SOURCE, 1);
        assert_eq!(arr[1].MPI_SOURCE, 0);
        // SAFETY: the ignore marker is rejected before any read.
        let e = unsafe { status_in(MPI_STATUS_IGNORE) }.unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
    }

    #[test]
    fn request_arrays() {
        // SAFETY: nothing is dereferenced for these arguments.
        unsafe {
            assert_eq!(
                requests(std::ptr::null_mut(), -1).unwrap_err().class,
                sys::MPI_ERR_COUNT
            );
            assert_eq!(
                requests(std::ptr::null_mut(), 2).unwrap_err().class,
                sys::MPI_ERR_ARG
            );
            assert!(requests(std::ptr::null_mut(), 0).unwrap().is_empty());
        }
        let mut hs = [sys::MPI_REQUEST_NULL; 2];
        // SAFETY: hs has 2 entries.
        let s = unsafe { requests(hs.as_mut_ptr(), 2) }.unwrap();
        assert_eq!(s.len(), 2);
        // SAFETY: null is rejected before any write.
        let e = unsafe { out::<c_int>(std::ptr::null_mut(), "flag") }.unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (sys::MPI_ERR_ARG, "null pointer passed as flag")
        );
    }
}
