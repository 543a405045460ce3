//! VACED virtual time for one rank: the clock (tV and CPU-time deltas), the
//! progress-interval history (AWTstart / AWTend), the handling-time rule of
//! Algorithm 3, and the wire format of the protocol messages (DATA, REQ, ACK)
//! that carry their arrival time.
