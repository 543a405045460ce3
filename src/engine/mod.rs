//! VACED virtual time for one rank: the clock (tV and CPU-time deltas), the
//! progress-interval history (AWTstart / AWTend) with the handling-time rule of
//! Algorithm 3, and the wire format of the protocol messages (DATA, REQ, ACK)
//! that carry their arrival time. Pure state: no host I/O here.
pub mod clock;
pub mod history;
pub mod wire;

pub use clock::{Breakdown, Clock};
pub use history::History;
pub use wire::{Body, Decoder, Kind, Msg, Payload};
