//! Writing the call log (see `p2p::record`): what the MPI layer asks of the
//! engine, noted as it happens, so that `crate::replay` can run this rank
//! again under other targets; a nonblocking collective's schedule is noted
//! as a whole when it starts. Calls the replay cannot reproduce (the engine
//! acting on its own between calls: one-sided communication and MPI-IO's
//! active messages, MPI_Comm_idup's agreement, several threads) end the job
//! with a message naming what is refused.
use super::super::record::{Call, Recorder, Seen};
use super::super::ReqId;
use super::Core;
use crate::p2p::link::Link;

impl<L: Link> Core<L> {
    /// Log every call from now on (right after [`Core::new`]).
    pub fn start_recording(&mut self, mut rec: Recorder) {
        rec.put(&Call::Start {
            cpu: self.clock.thread_marks().0,
            exact: self.exact,
        });
        self.rec = Some(Box::new(rec));
    }

    pub fn is_recording(&self) -> bool {
        self.rec.is_some()
    }

    /// Log the call `f` describes (built only when recording). The calls a
    /// compound request makes while it is polled are its own: the replay
    /// runs it again from its description.
    pub(super) fn note(&mut self, f: impl FnOnce(&Self) -> Call) {
        if self.polling.is_some() {
            return;
        }
        if let Some(mut r) = self.rec.take() {
            r.put(&f(self));
            self.rec = Some(r);
        }
    }

    /// Write out the log (MPI_Finalize).
    pub(super) fn flush_record(&mut self) {
        if let Some(r) = self.rec.as_mut() {
            r.flush();
        }
    }

    /// Log MPI_Wait / Waitall on `reqs` (a wait on one request, the
    /// commonest call, without building a call).
    pub(super) fn note_wait_all(&mut self, reqs: &[ReqId]) {
        match *reqs {
            [r] if self.polling.is_none() => {
                if let Some(mut rec) = self.rec.take() {
                    rec.put_wait_one(r, self.seen_one(r));
                    self.rec = Some(rec);
                }
            }
            _ => self.note(|c| Call::WaitAll {
                ids: reqs.to_vec(),
                seen: c.seen(reqs),
            }),
        }
    }

    /// What the receives among `ids` got (sends: (-1, -1)).
    pub fn seen(&self, ids: &[ReqId]) -> Vec<Seen> {
        ids.iter().map(|&r| self.seen_one(r)).collect()
    }

    fn seen_one(&self, r: ReqId) -> Seen {
        if !self.reqs.is_active(r) || self.reqs.get(r).done.is_none() {
            return (-1, -1);
        }
        let st = self.reqs.get(r).status;
        (st.source, st.tag)
    }

    /// `what` cannot be replayed under other targets: end the job saying so.
    pub(crate) fn refuse_if_recording(&mut self, what: &str) {
        if self.rec.is_some() {
            let msg = format!(
                "{what} cannot be replayed under other targets yet; \
                 give one --target (and no --sweep), or run each target separately (vaced sweep)"
            );
            self.link.fail(&msg);
        }
    }
}
