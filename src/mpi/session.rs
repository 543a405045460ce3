//! MPI-4 Sessions: session objects (their error handler and the thread
//! level they were granted), the process sets a session knows
//! ("mpi://WORLD": every process of the job, "mpi://SELF": this one; names
//! compared without regard to case, as MPICH does), their info ("mpi_size"),
//! and MPI_Comm_create_from_group.
//!
//! A session needs no MPI_Init: the first of MPI_Init / MPI_Session_init
//! attaches the process to the job (the start event), and the process stays
//! attached while the world model or any session is active (see
//! `abi::state` and `abi::session`). The thread level is the process's: the
//! first initialization sets it, a later one may raise it.
//!
//! MPI_Comm_create_from_group is collective over the group's processes and
//! agrees on a context id as MPI_Comm_create_group does (MPICH runs it as
//! MPI_Comm_create_group over its internal world communicator), with a tag
//! derived from the string tag, on a context of its own ([`SESSION_CTX`]),
//! so neither a program's MPI_Comm_create_group nor any communicator's
//! traffic can match its messages. Timing: those messages, as for the
//! other constructors. Under MPI_THREAD_MULTIPLE it runs as its
//! nonblocking form (the agreement of MPI_Comm_idup, `mpi::comm_idup`) and
//! a wait that other threads of the rank may interrupt, so that threads can
//! create communicators (and run collectives) side by side; its timing is
//! then that of the nonblocking agreement.
use crate::mpi::backend::Backend;
use crate::mpi::comm::{Comm, Group};
use crate::mpi::comm_group::{AgreeGroup, GROUP_CTX_BIT};
use crate::mpi::context::lowest_free;
use crate::mpi::error::{fail, MpiResult};
use crate::mpi::state::World;
use crate::sys::{self, MPI_Comm, MPI_Errhandler, MPI_Group, MPI_Session};
use std::collections::BTreeMap;
use std::os::raw::c_int;
use std::sync::Arc;

/// The context of MPI_Comm_create_from_group's agreement messages: a group
/// context (`GROUP_CTX_BIT`) whose id part no communicator has (context ids
/// stay below 2048).
pub const SESSION_CTX: u32 = GROUP_CTX_BIT | 0x0010_0000;

/// The process sets every session knows, in the order
/// MPI_Session_get_nth_pset gives them.
pub const PSETS: [&str; 2] = ["mpi://WORLD", "mpi://SELF"];

/// First session handle (MPICH's direct session kind).
const SESSION_BASE: u32 = 0xbc00_0000;
/// Session handles available.
const SESSION_MAX: u32 = 0x03ff_ffff;

/// One session.
#[derive(Debug, Clone)]
pub struct Session {
    /// Its error handler (MPI_Session_init's, or MPI_Session_set_errhandler's).
    pub errhandler: MPI_Errhandler,
}

/// The sessions of this process that are initialized and not finalized.
#[derive(Debug, Default)]
pub struct Sessions {
    map: BTreeMap<MPI_Session, Session>,
    next: u32,
}

impl Sessions {
    /// A new session's handle (never reused).
    pub fn insert(&mut self, s: Session) -> MpiResult<MPI_Session> {
        if self.next > SESSION_MAX {
            return fail(sys::MPI_ERR_INTERN, "out of session handles");
        }
        let h = (SESSION_BASE | self.next) as MPI_Session;
        self.next += 1;
        self.map.insert(h, s);
        Ok(h)
    }

    /// The session `h` (MPI_ERR_SESSION if it is not an active session).
    pub fn get(&self, h: MPI_Session) -> MpiResult<&Session> {
        self.map.get(&h).ok_or_else(|| invalid(h))
    }

    pub fn get_mut(&mut self, h: MPI_Session) -> MpiResult<&mut Session> {
        self.map.get_mut(&h).ok_or_else(|| invalid(h))
    }

    /// MPI_Session_finalize: `h` is no longer a session.
    pub fn remove(&mut self, h: MPI_Session) -> MpiResult<Session> {
        self.map.remove(&h).ok_or_else(|| invalid(h))
    }

    /// How many sessions are active.
    pub fn active(&self) -> usize {
        self.map.len()
    }
}

fn invalid(h: MPI_Session) -> crate::mpi::MpiError {
    let msg = if h == sys::MPI_SESSION_NULL {
        "MPI_SESSION_NULL is not a valid session".to_string()
    } else {
        format!("invalid session {h:#x} (not initialized, or finalized)")
    };
    crate::mpi::MpiError::new(sys::MPI_ERR_SESSION, msg)
}

/// The canonical name of process set `name` (compared without regard to
/// case), or MPI_ERR_ARG.
pub fn pset(name: &str) -> MpiResult<&'static str> {
    match PSETS.iter().find(|p| p.eq_ignore_ascii_case(name)) {
        Some(p) => Ok(p),
        None => fail(
            sys::MPI_ERR_ARG,
            format!(
                "unknown process set \"{name}\" (the process sets are {})",
                PSETS.join(" and ")
            ),
        ),
    }
}

/// The world ranks of process set `name` as seen by world rank `me` of a
/// job of `size` processes, in rank order.
pub fn pset_ranks(name: &str, me: u32, size: u32) -> MpiResult<Vec<u32>> {
    Ok(match pset(name)? {
        "mpi://WORLD" => (0..size).collect(),
        _ => vec![me],
    })
}

/// The name of thread level `level` (the value of the "thread_level" key).
pub fn thread_level_name(level: c_int) -> &'static str {
    match level {
        sys::MPI_THREAD_SINGLE => "MPI_THREAD_SINGLE",
        sys::MPI_THREAD_FUNNELED => "MPI_THREAD_FUNNELED",
        sys::MPI_THREAD_SERIALIZED => "MPI_THREAD_SERIALIZED",
        _ => "MPI_THREAD_MULTIPLE",
    }
}

/// The thread level a "thread_level" value names (MPI_ERR_ARG otherwise).
pub fn parse_thread_level(value: &str) -> MpiResult<c_int> {
    let v = value.trim();
    [
        sys::MPI_THREAD_SINGLE,
        sys::MPI_THREAD_FUNNELED,
        sys::MPI_THREAD_SERIALIZED,
        sys::MPI_THREAD_MULTIPLE,
    ]
    .into_iter()
    .find(|&l| thread_level_name(l).eq_ignore_ascii_case(v))
    .map_or_else(
        || {
            fail(
                sys::MPI_ERR_ARG,
                format!(
                    "invalid \"thread_level\" value \"{v}\" (MPI_THREAD_SINGLE, \
                     MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE)"
                ),
            )
        },
        Ok,
    )
}

/// The tag of MPI_Comm_create_from_group's messages for string tag `s`
/// (FNV-1a, kept non-negative): every process computes the same one.
pub fn string_tag(s: &[u8]) -> i32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in s {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    (h & 0x7fff_ffff) as i32
}

impl<E: Backend + AgreeGroup + crate::mpi::agree::Agree> World<E> {
    /// MPI_Group_from_session_pset: a new group of process set `name`.
    pub fn group_from_pset(&mut self, session: MPI_Session, name: &str) -> MpiResult<MPI_Group> {
        self.sessions.get(session)?;
        let ranks = pset_ranks(name, self.rank(), self.ep.size())?;
        Ok(self.comms.groups.insert(Arc::new(Group::new(ranks))))
    }

    /// MPI_Comm_create_from_group's checks: the group, my rank in it (None:
    /// not a member), the tag of the agreement's messages.
    fn create_from_group_args(
        &self,
        group: MPI_Group,
        stringtag: &[u8],
        errhandler: MPI_Errhandler,
    ) -> MpiResult<(Arc<Group>, Option<u32>, i32)> {
        let g = self.comms.groups.get(group)?;
        if stringtag.len() >= sys::MPI_MAX_STRINGTAG_LEN as usize {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "string tag of {} characters (at most MPI_MAX_STRINGTAG_LEN - 1 = {})",
                    stringtag.len(),
                    sys::MPI_MAX_STRINGTAG_LEN - 1
                ),
            );
        }
        self.errhandlers
            .check_for(errhandler, crate::mpi::errhandler::ObjKind::Comm)?;
        let me = g.rank_of(self.rank());
        Ok((g, me, string_tag(stringtag)))
    }

    /// MPI_Comm_create_from_group: the members of `group` agree on a context
    /// id (over the group, tagged with `stringtag`'s hash) and each builds
    /// the communicator, with error handler `errhandler`. A process outside
    /// the group gets MPI_COMM_NULL (as from MPI_Comm_create_group).
    pub fn comm_create_from_group(
        &mut self,
        group: MPI_Group,
        stringtag: &[u8],
        errhandler: MPI_Errhandler,
    ) -> MpiResult<MPI_Comm> {
        let (g, me, tag) = self.create_from_group_args(group, stringtag, errhandler)?;
        let Some(me) = me else {
            return Ok(sys::MPI_COMM_NULL);
        };
        self.quiesce_idups();
        let mut mask = self.comms.free_mask(true);
        self.ep
            .allreduce_band_group(g.ranks(), me as usize, SESSION_CTX, tag, &mut mask);
        let id = lowest_free(&mask)?;
        self.comms.ctx_mask.take(id);
        let c = Comm::new(id, g.clone(), me, errhandler);
        Ok(self.commit(c, false))
    }
}

impl World<crate::p2p::Endpoint> {
    /// MPI_Comm_create_from_group in its nonblocking form (see
    /// `World::group_idup`): the new handle and the request to wait for;
    /// (MPI_COMM_NULL, MPI_REQUEST_NULL) outside the group.
    pub fn comm_icreate_from_group(
        &mut self,
        group: MPI_Group,
        stringtag: &[u8],
        errhandler: MPI_Errhandler,
    ) -> MpiResult<(MPI_Comm, sys::MPI_Request)> {
        let (g, me, tag) = self.create_from_group_args(group, stringtag, errhandler)?;
        Ok(match me {
            None => (sys::MPI_COMM_NULL, sys::MPI_REQUEST_NULL),
            Some(me) => self.group_idup(g, me, SESSION_CTX, tag, errhandler),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_counted_and_checked() {
        let mut t = Sessions::default();
        let a = t
            .insert(Session {
                errhandler: sys::MPI_ERRORS_RETURN,
            })
            .unwrap();
        let b = t
            .insert(Session {
                errhandler: sys::MPI_ERRORS_ARE_FATAL,
            })
            .unwrap();
        assert_eq!((a as u32, b as u32), (0xbc00_0000, 0xbc00_0001));
        assert_eq!(t.active(), 2);
        assert_eq!(t.get(a).unwrap().errhandler, sys::MPI_ERRORS_RETURN);
        t.remove(a).unwrap();
        assert_eq!(t.active(), 1);
        let e = t.get(a).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_SESSION);
        assert_eq!(
            e.msg,
            "invalid session 0xbc000000 (not initialized, or finalized)"
        );
        let e = t.remove(sys::MPI_SESSION_NULL).unwrap_err();
        assert_eq!(
            (e.class, e.msg.as_str()),
            (
                sys::MPI_ERR_SESSION,
                "MPI_SESSION_NULL is not a valid session"
            )
        );
    }

    #[test]
    fn process_sets() {
        assert_eq!(pset_ranks("mpi://WORLD", 2, 4).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(pset_ranks("mpi://world", 2, 4).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(pset_ranks("mpi://self", 2, 4).unwrap(), vec![2]);
        let e = pset_ranks("mpi://NODE", 0, 4).unwrap_err();
        assert_eq!(e.class, sys::MPI_ERR_ARG);
        assert_eq!(
            e.msg,
            "unknown process set \"mpi://NODE\" (the process sets are mpi://WORLD and mpi://SELF)"
        );
    }

    #[test]
    fn thread_levels_and_tags() {
        for l in 0..4 {
            assert_eq!(parse_thread_level(thread_level_name(l)).unwrap(), l);
        }
        assert_eq!(
            parse_thread_level("mpi_thread_multiple").unwrap(),
            sys::MPI_THREAD_MULTIPLE
        );
        assert_eq!(
            parse_thread_level("MULTIPLE").unwrap_err().class,
            sys::MPI_ERR_ARG
        );
        // FNV-1a of "" and "a", kept non-negative
        assert_eq!(string_tag(b""), (0x811c_9dc5_u32 & 0x7fff_ffff) as i32);
        assert_eq!(string_tag(b"a"), (0xe40c_292c_u32 & 0x7fff_ffff) as i32);
        assert_ne!(string_tag(b"thread 1"), string_tag(b"thread 3"));
    }
}
