//! One-sided communication (MPI RMA), implemented the way MPICH's CH3
//! device implements it in its default configuration: as packets over the
//! message layer, handled by the target inside its own MPI calls.
//!
//! * `window`: windows (MPI_Win_create / Win_allocate / Win_free), their
//!   table, error handlers and attributes;
//! * `packet`: the packets and their encoding;
//! * `target`: what a target does with a packet (the active-message
//!   handler the engine calls, see [`crate::p2p::Active`]);
//! * `ops`: Put, Get, Accumulate at the origin (issuing or queueing);
//! * `sync`: fence, lock / unlock (+ lock_all), flush, sync;
//! * `pscw`: post / start / complete / wait / test;
//! * `memory`: what a window exposes at its target (one region, or a
//!   dynamic window's attached regions) and the data movements on it;
//! * `dynamic`: MPI_Win_create_dynamic / attach / detach (addresses as
//!   displacements, checked by the target: MPI_ERR_RMA_RANGE);
//! * `shared`: MPI_Win_allocate_shared / shared_query: one host
//!   shared-memory object per window, operations done by the origin as
//!   direct copies (CH3 nemesis), their timing and synchronization;
//! * `hints`: the info keys MPICH keeps for a window (MPI_Win_get_info).
//!
//! Window error handlers (MPI_Win_create_errhandler, set / get / call) are
//! in the ABI layer and `crate::mpi::errhandler`: windows start with
//! MPI_ERRORS_ARE_FATAL, and every failing call on a valid window raises
//! its error through the window's handler.
//!
//! # Timing rules
//!
//! Every packet is a message of the engine, timed by the same equations as
//! point-to-point messages (`tr = ts + b/Bmem`, `ta = tr + L(b, h)`) and
//! handled by the target at `ttemp` (Algorithm 3): the arrival if the target
//! is inside an MPI call then, otherwise the start of its next waiting
//! activity. The passive target thus makes progress only inside its own MPI
//! calls, as MPICH's CH3 does by default (no progress thread).
//!
//! * PUT / ACCUMULATE of `b` bytes: one message of `b` bytes sent at the
//!   origin's `tV` when the operation is issued; the origin's `tV` becomes
//!   `tr` (the operation is then complete at the origin). The target copies
//!   the data in at `ttemp` (done at `ttemp + b/Bmem`).
//! * GET of `b` bytes: a request of `header_bytes` sent when issued (the
//!   origin's `tV` becomes its `tr`); the target answers at `ttemp` with a
//!   response of `b` bytes (`tr = ttemp + b/Bmem`); the origin deals with the
//!   response in a waiting activity like any eager message and the GET is
//!   complete at `ttemp' + b/Bmem`.
//! * GET_ACCUMULATE of `b` bytes: a packet of `b` bytes (`header_bytes`
//!   for MPI_NO_OP and for Fetch_and_op, CH3's immediate FOP packet); the
//!   target applies it at `ttemp` and answers the old data (`b` bytes)
//!   then; complete at the origin as a GET. COMPARE_AND_SWAP: a packet of
//!   `header_bytes` (CH3's immediate CAS), answered like Fetch_and_op.
//! * Control packets (LOCK, UNLOCK, FLUSH, DONE) and their answers (LOCK_GRANTED,
//!   ACK) are messages of `header_bytes`; answers leave at the target's
//!   `ttemp` without moving its clock (like the ACK of a rendezvous).
//! * Request-based operations (MPI_Rput, Rget, Raccumulate,
//!   Rget_accumulate) send the same packets; their request completes as
//!   the operation does at the origin (a PUT-like one at once, a GET-like
//!   one when the response has been received). They are issued at the call:
//!   if the epoch's grant has not come yet (LOCK_GRANTED of a passive
//!   target, the POSTs of MPI_Win_start), the call waits for it first, so
//!   an R* call under a fresh lock returns only once the lock is granted
//!   and its clock includes that wait. CH3 instead queues the operation,
//!   returns at once and issues it when its progress engine deals with
//!   LOCK_GRANTED; doing that here would need the queued packets (and the
//!   GET responses' destinations) to be issued from the engine's progress
//!   (a compound request) instead of the window's synchronization calls,
//!   which would also change when plain queued operations leave; not done.
//!   On a shared-memory window R* operations are direct copies, complete
//!   at the call.
//! * Operations are issued at the call when the epoch allows it, otherwise
//!   queued and issued, in order, when the synchronization call that waits
//!   for the epoch (LOCK_GRANTED) ends that wait.
//!
//! Synchronization (MPICH 4.0.2 CH3, `ch3u_rma_sync.c`, basic algorithms):
//!
//! * MPI_Win_fence: unless `MPI_MODE_NOPRECEDE`, the fence closes an epoch:
//!   a Reduce_scatter_block (MPI_SUM of one int per rank, the collective's
//!   usual algorithm and timing) tells every rank how many packets of the
//!   epoch are aimed at it; the fence then waits until its own GETs are
//!   complete and it has dealt with that many packets (it ends no earlier
//!   than the last was done). Unless `MPI_MODE_NOSUCCEED`, a barrier (the
//!   dissemination barrier of MPI_Barrier) then opens the next epoch. CH3
//!   counts origins and flags each origin's last packet, and starts that
//!   barrier as an Ibarrier that later operations wait for; here packets
//!   are counted and the barrier is complete when the fence returns, so
//!   operations after a fence are issued at their call.
//! * MPI_Win_post / start / complete / wait: see `pscw`.
//! * MPI_Win_lock: sends LOCK at once (CH3 without delayed issuing) and
//!   returns, except on its own window, where it waits for the lock. With
//!   `MPI_MODE_NOCHECK` nothing is sent: the lock is taken as granted.
//!   Operations wait in the queue until LOCK_GRANTED has been received.
//! * MPI_Win_unlock: waits for LOCK_GRANTED if needed, issues what is
//!   queued, sends UNLOCK (asking for an ACK only if operations were issued
//!   since the last flush, as CH3's UNLOCK_NO_ACK) and waits for its GET
//!   responses and the ACK.
//! * MPI_Win_flush: as unlock, with FLUSH instead of UNLOCK (the lock
//!   stays); flush_local waits only for GET responses (a PUT is complete at
//!   the origin once sent). The _all forms do it for every target of the
//!   epoch.
//! * MPI_Win_lock_all: local; a shared LOCK is sent to a target with the
//!   first operation aimed at it (CH3's per-target lock of lock_all).
//! * MPI_Win_create / Win_allocate: a duplicate of the communicator (its
//!   context-id allreduce), then an Allgather of 32 bytes per rank (CH3
//!   gathers base, size, displacement unit and handle). MPI_Win_free: a
//!   barrier, then the duplicate is freed.
//! * An operation on the origin's own window goes through the same packets
//!   (an intra-node message to itself).
pub mod dynamic;
pub mod hints;
pub mod memory;
pub mod ops;
pub mod packet;
pub mod pscw;
pub mod shared;
pub mod sync;
pub mod target;
pub mod window;

pub use window::{Rma, Window};
