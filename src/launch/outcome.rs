//! How a job ended: the one message the launcher prints and its exit status.

use super::hosts::Block;
use super::signame;

/// Why a job was ended early because of one rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The rank was killed by signal `sig`.
    Signaled {
        rank: u32,
        pid: u32,
        sig: i32,
        core: bool,
    },
    /// The rank recorded that it received fatal signal `sig` and died of
    /// it (a rank another launcher started: vaced's MPICH).
    RankSignaled { rank: u32, pid: u32, sig: i32 },
    /// The rank exited with `status` before completing MPI_Finalize.
    NoFinalize { rank: u32, pid: u32, status: i32 },
    /// A host process of several ranks (`block`; MPICH's launcher through
    /// vaced's MPICH) exited with `status` while `ranks` of them had never
    /// joined the job: they died before or inside MPI_Init.
    NeverJoined {
        ranks: Vec<u32>,
        block: Block,
        pid: u32,
        status: i32,
    },
    /// The rank completed MPI_Finalize, then exited with non-zero `status`.
    BadExitAfterFinalize { rank: u32, pid: u32, status: i32 },
    /// The rank recorded an abort (MPI_Abort or a fatal MPI error).
    Aborted {
        rank: u32,
        code: i32,
        message: Option<String>,
    },
    /// A job across hosts: host `host`'s side was ended from outside
    /// (`why`), its ranks killed; `code` is its exit status.
    HostGone { host: u32, why: String, code: i32 },
}

impl Failure {
    /// One line naming the rank and the signal, status or abort code.
    pub fn message(&self) -> String {
        self.message_in(&[])
    }

    /// The same in the many-ranks mode, where `hosts` (the blocks of ranks
    /// by host process; empty: one process per rank) say which host
    /// process the pid is: `rank 4 (host process 99 of ranks 3-5) ...`.
    pub fn message_in(&self, hosts: &[Block]) -> String {
        let who = |rank: u32, pid: u32| match hosts.iter().find(|b| b.contains(rank)) {
            Some(b) => format!("rank {rank} (host process {pid} of {})", b.describe()),
            None => format!("rank {rank} (pid {pid})"),
        };
        match self {
            Failure::Signaled {
                rank,
                pid,
                sig,
                core,
            } => format!(
                "{} was killed by signal {}{}; the job was aborted",
                who(*rank, *pid),
                signame::describe(*sig),
                if *core { ", core dumped" } else { "" }
            ),
            Failure::RankSignaled { rank, pid, sig } => format!(
                "rank {rank} (pid {pid}) was killed by signal {}; the job was aborted",
                signame::describe(*sig)
            ),
            Failure::NoFinalize { rank, pid, status } => format!(
                "{} exited with status {status} without calling MPI_Finalize; the job was aborted",
                who(*rank, *pid)
            ),
            Failure::NeverJoined {
                ranks,
                block,
                pid,
                status,
            } => {
                let who = if ranks.len() == block.count as usize {
                    format!("none of {} joined the job", block.describe())
                } else {
                    let list: Vec<String> = ranks.iter().map(u32::to_string).collect();
                    let r = if ranks.len() == 1 { "rank" } else { "ranks" };
                    format!(
                        "{r} {} of {} never joined the job",
                        list.join(", "),
                        block.describe()
                    )
                };
                format!(
                    "{who} (a rank died before or inside MPI_Init); their host process {pid} \
                     exited with status {status}; the job was aborted"
                )
            }
            Failure::BadExitAfterFinalize { rank, pid, status } => format!(
                "{} exited with status {status} after MPI_Finalize; the job was aborted",
                who(*rank, *pid)
            ),
            Failure::Aborted {
                rank,
                code,
                message,
            } => match message.as_deref().map(str::trim) {
                Some(m) if !m.is_empty() => {
                    format!("rank {rank} ended the job with error code {code}: {m}")
                }
                _ => format!(
                    "rank {rank} called MPI_Abort with error code {code}; the job was aborted"
                ),
            },
            Failure::HostGone { host, why, .. } => format!(
                "host {host}'s side (vaced host-side) was {why}, its ranks killed; the job was \
                 aborted"
            ),
        }
    }

    /// The launcher's exit status for this failure.
    pub fn exit_code(&self) -> i32 {
        match *self {
            Failure::Signaled { sig, .. } | Failure::RankSignaled { sig, .. } => 128 + sig,
            Failure::NoFinalize { status, .. } | Failure::NeverJoined { status, .. } => {
                if (1..=255).contains(&status) {
                    status
                } else {
                    1
                }
            }
            Failure::BadExitAfterFinalize { status, .. } => status,
            Failure::Aborted { code, .. } | Failure::HostGone { code, .. } => {
                if (1..=255).contains(&code) {
                    code
                } else {
                    1
                }
            }
        }
    }
}

/// Message and exit status when the job ran past MPIEXEC_TIMEOUT (`limit`):
/// status 124, as timeout(1) exits.
pub fn timed_out(limit: std::time::Duration) -> (String, i32) {
    (
        format!(
            "the job ran past MPIEXEC_TIMEOUT ({} s of wall-clock time); all ranks were killed",
            limit.as_secs()
        ),
        124,
    )
}

/// Message and exit status when the launcher itself got `sig`.
pub fn interrupted(sig: i32) -> (String, i32) {
    (
        format!(
            "interrupted by {}; all ranks were killed",
            signame::name(sig)
        ),
        128 + sig,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_and_exit_codes() {
        let f = Failure::Signaled {
            rank: 2,
            pid: 99,
            sig: libc::SIGSEGV,
            core: false,
        };
        assert_eq!(
            f.message(),
            "rank 2 (pid 99) was killed by signal SIGSEGV (segmentation fault); the job was aborted"
        );
        assert_eq!(f.exit_code(), 139);
        let f = Failure::Signaled {
            rank: 0,
            pid: 5,
            sig: libc::SIGABRT,
            core: true,
        };
        assert_eq!(
            f.message(),
            "rank 0 (pid 5) was killed by signal SIGABRT (aborted), core dumped; the job was aborted"
        );
        assert_eq!(f.exit_code(), 134);

        let f = Failure::NeverJoined {
            ranks: vec![2],
            block: Block { first: 0, count: 4 },
            pid: 9,
            status: 11,
        };
        assert_eq!(
            f.message(),
            "rank 2 of ranks 0-3 never joined the job (a rank died before or inside MPI_Init); \
             their host process 9 exited with status 11; the job was aborted"
        );
        assert_eq!(f.exit_code(), 11);
        let f = Failure::NeverJoined {
            ranks: vec![0, 1, 2, 3],
            block: Block { first: 0, count: 4 },
            pid: 9,
            status: 11,
        };
        assert_eq!(
            f.message(),
            "none of ranks 0-3 joined the job (a rank died before or inside MPI_Init); their \
             host process 9 exited with status 11; the job was aborted"
        );
        let f = Failure::NoFinalize {
            rank: 1,
            pid: 7,
            status: 0,
        };
        assert_eq!(
            f.message(),
            "rank 1 (pid 7) exited with status 0 without calling MPI_Finalize; the job was aborted"
        );
        assert_eq!(f.exit_code(), 1);
        let f = Failure::NoFinalize {
            rank: 1,
            pid: 7,
            status: 3,
        };
        assert_eq!(f.exit_code(), 3);

        let f = Failure::BadExitAfterFinalize {
            rank: 4,
            pid: 8,
            status: 2,
        };
        assert_eq!(
            f.message(),
            "rank 4 (pid 8) exited with status 2 after MPI_Finalize; the job was aborted"
        );
        assert_eq!(f.exit_code(), 2);

        let f = Failure::Aborted {
            rank: 3,
            code: 7,
            message: Some("bad input\n".into()),
        };
        assert_eq!(
            f.message(),
            "rank 3 ended the job with error code 7: bad input"
        );
        assert_eq!(f.exit_code(), 7);
        let f = Failure::Aborted {
            rank: 3,
            code: 300,
            message: None,
        };
        assert_eq!(
            f.message(),
            "rank 3 called MPI_Abort with error code 300; the job was aborted"
        );
        assert_eq!(f.exit_code(), 1);
        let f = Failure::Aborted {
            rank: 0,
            code: -4,
            message: Some(String::new()),
        };
        assert_eq!(f.exit_code(), 1);
        assert_eq!(
            f.message(),
            "rank 0 called MPI_Abort with error code -4; the job was aborted"
        );
    }

    #[test]
    fn a_host_ended_from_outside_is_named_with_its_status() {
        let f = Failure::HostGone {
            host: 1,
            why: "ended by SIGTERM".into(),
            code: 128 + libc::SIGTERM,
        };
        assert_eq!(
            f.message(),
            "host 1's side (vaced host-side) was ended by SIGTERM, its ranks killed; the job \
             was aborted"
        );
        assert_eq!(f.exit_code(), 143);
    }

    #[test]
    fn a_rank_that_recorded_its_signal_is_named_with_its_own_pid() {
        let hosts = [Block { first: 0, count: 5 }];
        let f = Failure::RankSignaled {
            rank: 2,
            pid: 4242,
            sig: libc::SIGSEGV,
        };
        assert_eq!(
            f.message_in(&hosts),
            "rank 2 (pid 4242) was killed by signal SIGSEGV (segmentation fault); the job was \
             aborted"
        );
        assert_eq!(f.exit_code(), 128 + libc::SIGSEGV);
    }

    #[test]
    fn messages_name_the_host_process() {
        let hosts = [Block { first: 0, count: 3 }, Block { first: 3, count: 1 }];
        let f = Failure::Signaled {
            rank: 1,
            pid: 99,
            sig: libc::SIGSEGV,
            core: false,
        };
        assert_eq!(
            f.message_in(&hosts),
            "rank 1 (host process 99 of ranks 0-2) was killed by signal SIGSEGV (segmentation \
             fault); the job was aborted"
        );
        let f = Failure::NoFinalize {
            rank: 3,
            pid: 7,
            status: 0,
        };
        assert_eq!(
            f.message_in(&hosts),
            "rank 3 (host process 7 of rank 3) exited with status 0 without calling \
             MPI_Finalize; the job was aborted"
        );
        let f = Failure::BadExitAfterFinalize {
            rank: 0,
            pid: 8,
            status: 2,
        };
        assert_eq!(
            f.message_in(&hosts),
            "rank 0 (host process 8 of ranks 0-2) exited with status 2 after MPI_Finalize; the \
             job was aborted"
        );
        let f = Failure::Aborted {
            rank: 2,
            code: 7,
            message: None,
        };
        assert_eq!(f.message_in(&hosts), f.message());
    }

    #[test]
    fn interrupt_message() {
        assert_eq!(
            interrupted(libc::SIGINT),
            (
                "interrupted by SIGINT; all ranks were killed".to_string(),
                130
            )
        );
        assert_eq!(interrupted(libc::SIGTERM).1, 143);
    }
}
