//! MPI-IO: files opened by every rank of a communicator, whose data really
//! goes to the host file system (each rank opens the real path and reads
//! or writes the bytes its view gives with pread / pwrite), timed by the
//! target's parallel file system (`[io]` of the target file,
//! [`crate::model::IoModel`]: `latency` per operation, `bandwidth` per
//! client stream; defaults 100 us and 1 GB/s).
//!
//! * `file`: the file table, MPI_File_open / close / delete, amodes,
//!   size, preallocate, sync, atomicity, info, groups, error handlers;
//! * `hints`: the hints ROMIO interprets (cb_buffer_size, cb_nodes,
//!   romio_cb_read / romio_cb_write) and their defaults;
//! * `view`: views (displacement, etype, filetype, datarep) and how a
//!   position maps to byte runs of the file;
//! * `access`: independent, nonblocking and split-collective data access,
//!   seek and positions, MPI_File_set_view;
//! * `two_phase`: collective access, ROMIO's two-phase algorithm;
//! * `shared`: the shared file pointer and the ordered calls.
//!
//! # Timing rules
//!
//! An access of `b > 0` bytes costs `io(b) = latency + b / bandwidth`; one
//! of 0 bytes costs nothing. "One operation" is `latency`. I/O time is
//! counted as communication time in the report.
//!
//! * Independent reads and writes (`_at`, individual pointer, `_shared`):
//!   local to the rank on the target (no message): `tV += io(b)`. A
//!   `_shared` access first updates the shared pointer: one operation.
//! * Nonblocking independent calls (`MPI_File_iread(_at, _shared)`,
//!   `iwrite...`) move the data at the call; their request is complete at
//!   `tV + io(b)` (the call's own clock does not move), so computation
//!   overlaps the access, and a Wait ends no earlier than that.
//! * Collective calls (`_all`, `_at_all`) follow ROMIO's generic two-phase
//!   I/O (see `two_phase` for the steps): two allgathers of the ranks'
//!   ranges; when the ranges do not interleave (and `romio_cb_*` is
//!   "automatic") each rank then accesses its data independently; else
//!   counts and offset lists go to the aggregators, an allreduce fixes the
//!   number of rounds, and per round of at most `cb_buffer_size` bytes an
//!   alltoall of sizes and point-to-point messages move the data between
//!   the ranks and the aggregators, which access their window of the file
//!   (`io(window)`, plus `io(window)` for the read of a read-modify-write
//!   when the window has holes); a write ends with a broadcast (one
//!   aggregator) or an allreduce of the error codes. Aggregators: the
//!   first rank of each target node of the communicator (ROMIO's default
//!   "*:1"), at most `cb_nodes`. All messages are the engine's, timed by
//!   the network model.
//! * Split collectives (`_begin` / `_end`) run the collective in `_begin`
//!   (as ROMIO does); `_end` returns its status. Nonblocking collectives
//!   (`MPI_File_iread_all`, ...) likewise run in the starting call and
//!   return a complete request.
//! * `_ordered`: a token goes around the ranks in rank order (a zero-byte
//!   message from rank i - 1 to rank i), each rank updates the shared
//!   pointer (one operation) when it holds it, then the collective access
//!   at the positions obtained.
//! * MPI_File_open: the communicator is duplicated (its context-id
//!   agreement), an allreduce checks the amodes, rank 0 opens (creates)
//!   the file (one operation), a broadcast carries its outcome, the others
//!   open (one operation each), an allreduce of the error codes.
//!   MPI_File_close: a barrier, each rank closes (one operation); with
//!   MPI_MODE_DELETE_ON_CLOSE another barrier and rank 0 deletes (one
//!   operation). MPI_File_delete: one operation, local.
//! * MPI_File_set_size / preallocate: a broadcast (same size), rank 0
//!   resizes (one operation), a barrier. MPI_File_sync: one operation,
//!   then a barrier. MPI_File_get_size: one operation. MPI_File_set_view:
//!   a barrier (rank 0 resets a used shared pointer first: one operation).
//!   MPI_File_seek_shared: two broadcasts (same arguments), rank 0 moves
//!   the pointer (one operation), a barrier. set_atomicity: a broadcast.
//!   Queries (get_view, get_position, get_byte_offset, get_amode,
//!   get_group, get_info, get_type_extent, seek) take no time.
//!
//! Atomic mode holds a lock on the host file around each independent
//! access (no extra virtual time). Errors of file calls go to the file's
//! error handler (MPI_ERRORS_RETURN unless changed; MPI_FILE_NULL's for
//! MPI_File_open, MPI_File_delete and invalid handles).
#![forbid(unsafe_code)]

pub mod access;
pub mod file;
pub mod hints;
pub mod shared;
pub mod two_phase;
pub mod view;

pub use access::Pos;
pub use file::{FileObj, Io};
