//! Fallback for large payloads when CMA is refused: a shared-memory file per
//! payload, written by the sender, read and removed by the receiver.
use std::io;

/// Write `data` to a new spill file for job `job`; returns its name.
pub fn write(_job: &str, _data: &[u8]) -> io::Result<String> {
    todo!()
}
/// Copy the spill file `name` into `dst` and remove it.
pub fn take(_name: &str, _dst: &mut [u8]) -> io::Result<()> {
    todo!()
}
