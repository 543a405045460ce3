//! File handles: the table of this process's open files, MPI_File_open /
//! close / delete (collective agreement as ROMIO does it), amode checks,
//! the hints (info), size, preallocation, sync, atomicity, groups and
//! error handlers of files.
use super::hints::Hints;
use super::view::View;
use crate::coll;
use crate::mpi::coll_args::CollComm;
use crate::mpi::errhandler::ObjKind;
use crate::mpi::error::{fail, MpiError, MpiResult};
use crate::mpi::info::Info;
use crate::mpi::World;
use crate::sys::{self, MPI_Comm, MPI_Errhandler, MPI_File};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// An open file.
pub struct FileObj {
    /// The private duplicate of the communicator (MPI_File_get_group).
    pub comm: MPI_Comm,
    pub cc: CollComm,
    /// The name as given (the info's "filename") and the host path.
    pub name: String,
    pub path: PathBuf,
    pub amode: i32,
    pub host: std::fs::File,
    pub view: View,
    /// The individual file pointer, in etypes of the view.
    pub fp: u64,
    pub atomic: bool,
    pub hints: Hints,
    /// The hints the program gave that ROMIO does not interpret (kept and
    /// returned by MPI_File_get_info).
    pub extra: Info,
    /// Communicator ranks of the collective-buffering aggregators.
    pub aggregators: Vec<usize>,
    pub errhandler: MPI_Errhandler,
    /// The side file of the shared file pointer.
    pub shfp: PathBuf,
    /// A split collective begun and not ended: its name and status.
    pub split: Option<(&'static str, sys::MPI_Status)>,
}

/// This process's files.
pub struct Io {
    pub files: BTreeMap<MPI_File, FileObj>,
    next: MPI_File,
    /// MPI_FILE_NULL's error handler: the handler of MPI_File_open and
    /// MPI_File_delete, and the one new files get (MPI_ERRORS_RETURN at
    /// first, as the standard says).
    pub null_errhandler: MPI_Errhandler,
}

impl Default for Io {
    fn default() -> Self {
        Io {
            files: BTreeMap::new(),
            next: 1,
            null_errhandler: sys::MPI_ERRORS_RETURN,
        }
    }
}

impl Io {
    pub fn get(&self, fh: MPI_File) -> MpiResult<&FileObj> {
        match self.files.get(&fh) {
            Some(f) => Ok(f),
            None => fail(sys::MPI_ERR_FILE, bad_file(fh)),
        }
    }
    pub fn get_mut(&mut self, fh: MPI_File) -> MpiResult<&mut FileObj> {
        match self.files.get_mut(&fh) {
            Some(f) => Ok(f),
            None => fail(sys::MPI_ERR_FILE, bad_file(fh)),
        }
    }
    /// The handler of an error of a call on `fh` (MPI_FILE_NULL's for an
    /// invalid handle).
    pub fn errhandler(&self, fh: MPI_File) -> MPI_Errhandler {
        self.files
            .get(&fh)
            .map_or(self.null_errhandler, |f| f.errhandler)
    }
}

fn bad_file(fh: MPI_File) -> String {
    if fh == sys::MPI_FILE_NULL {
        "MPI_FILE_NULL is not an open file".to_string()
    } else {
        format!("invalid file handle {fh:#x}")
    }
}

/// The MPI error class of a host file-system error (ROMIO's mapping of
/// errno).
pub fn io_error(e: &std::io::Error, what: &str) -> MpiError {
    let class = match e.raw_os_error() {
        Some(libc::ENOENT) => sys::MPI_ERR_NO_SUCH_FILE,
        Some(libc::EEXIST) => sys::MPI_ERR_FILE_EXISTS,
        Some(libc::EACCES) | Some(libc::EPERM) => sys::MPI_ERR_ACCESS,
        Some(libc::ENOSPC) => sys::MPI_ERR_NO_SPACE,
        Some(libc::EROFS) => sys::MPI_ERR_READ_ONLY,
        Some(libc::EDQUOT) => sys::MPI_ERR_QUOTA,
        Some(libc::EISDIR) | Some(libc::ENAMETOOLONG) | Some(libc::ENOTDIR) => {
            sys::MPI_ERR_BAD_FILE
        }
        _ => sys::MPI_ERR_IO,
    };
    MpiError::new(class, format!("{what}: {e}"))
}

/// MPICH's checks of an amode: exactly one of RDONLY, WRONLY, RDWR; no
/// CREATE or EXCL with RDONLY; no SEQUENTIAL with RDWR.
pub fn check_amode(amode: i32) -> MpiResult<()> {
    let all = sys::MPI_MODE_CREATE
        | sys::MPI_MODE_RDONLY
        | sys::MPI_MODE_WRONLY
        | sys::MPI_MODE_RDWR
        | sys::MPI_MODE_DELETE_ON_CLOSE
        | sys::MPI_MODE_UNIQUE_OPEN
        | sys::MPI_MODE_EXCL
        | sys::MPI_MODE_APPEND
        | sys::MPI_MODE_SEQUENTIAL;
    if amode & !all != 0 {
        return fail(sys::MPI_ERR_AMODE, format!("invalid amode {amode:#x}"));
    }
    let access = [
        sys::MPI_MODE_RDONLY,
        sys::MPI_MODE_WRONLY,
        sys::MPI_MODE_RDWR,
    ]
    .iter()
    .filter(|&&m| amode & m != 0)
    .count();
    if access != 1 {
        return fail(
            sys::MPI_ERR_AMODE,
            format!(
                "amode {amode:#x} must have exactly one of MPI_MODE_RDONLY, \
                 MPI_MODE_WRONLY and MPI_MODE_RDWR"
            ),
        );
    }
    if amode & sys::MPI_MODE_RDONLY != 0 && amode & (sys::MPI_MODE_CREATE | sys::MPI_MODE_EXCL) != 0
    {
        return fail(
            sys::MPI_ERR_AMODE,
            "MPI_MODE_CREATE and MPI_MODE_EXCL cannot be used with MPI_MODE_RDONLY",
        );
    }
    if amode & sys::MPI_MODE_RDWR != 0 && amode & sys::MPI_MODE_SEQUENTIAL != 0 {
        return fail(
            sys::MPI_ERR_AMODE,
            "MPI_MODE_SEQUENTIAL cannot be used with MPI_MODE_RDWR",
        );
    }
    Ok(())
}

/// The host path of a file name: ROMIO's file-system prefixes ("ufs:",
/// "nfs:", ...) are dropped.
pub fn host_path(name: &str) -> PathBuf {
    for p in [
        "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "testfs:",
    ] {
        if let Some(rest) = name.strip_prefix(p) {
            return PathBuf::from(rest);
        }
    }
    PathBuf::from(name)
}

/// The side file of the shared file pointer of `path`.
fn shfp_path(path: &std::path::Path, nonce: u64) -> PathBuf {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let file = path
        .file_name()
        .map_or("file".into(), |f| f.to_string_lossy().into_owned());
    let name = format!(".{file}.vaced-shfp.{nonce:x}");
    match dir {
        Some(d) => d.join(name),
        None => PathBuf::from(name),
    }
}

/// Comm ranks of the aggregators: the first rank on each target node (in
/// rank order, ROMIO's default cb_config_list "*:1"), at most `cb_nodes`.
pub fn aggregators(w: &World, cc: &CollComm, cb_nodes: Option<usize>) -> Vec<usize> {
    let model = w.ep.model();
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (i, &r) in cc.ranks.iter().enumerate() {
        let node = model.node_of(r);
        if !seen.contains(&node) {
            seen.push(node);
            out.push(i);
        }
    }
    if let Some(n) = cb_nodes {
        out.truncate(n.max(1));
    }
    out
}

/// One 4-byte integer per rank, reduced with `f` (ROMIO's small
/// allreduces: amodes, error codes, iteration counts).
pub fn allreduce_i32(w: &mut World, cc: &CollComm, v: &mut [i32], f: fn(i32, i32) -> i32) {
    let mut buf: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut apply = |a: &[u8], b: &mut [u8]| {
        for (x, y) in a.chunks(4).zip(b.chunks_mut(4)) {
            let r = f(
                i32::from_le_bytes(x.try_into().expect("4 bytes")),
                i32::from_le_bytes((&*y).try_into().expect("4 bytes")),
            );
            y.copy_from_slice(&r.to_le_bytes());
        }
    };
    let mut op = coll::Op {
        commutative: true,
        builtin: true,
        apply: &mut apply,
    };
    coll::allreduce::allreduce(&mut comm(w, cc), &mut buf, 4, &mut op);
    for (x, c) in v.iter_mut().zip(buf.chunks(4)) {
        *x = i32::from_le_bytes(c.try_into().expect("4 bytes"));
    }
}

/// The collectives' view of a file's communicator.
pub fn comm<'a>(w: &'a mut World, cc: &'a CollComm) -> coll::Comm<'a, crate::p2p::PortLink> {
    coll::Comm {
        core: &mut w.ep,
        ranks: &cc.ranks,
        me: cc.me,
        ctx: cc.ctx,
    }
}

/// Charge one file-system operation (latency) to this rank.
pub fn charge_op(w: &mut World) {
    let t = w.ep.vtime() + w.ep.model().io.latency;
    w.ep.advance_io(t);
}

impl World {
    /// MPI_File_open. Collective: the duplicate of the communicator (its
    /// context-id agreement), an allreduce checking that every rank gave
    /// the same amode, rank 0 opens (creating the file if asked) and
    /// broadcasts its result with the name of the shared pointer's side
    /// file, the others open, and an allreduce of the error classes makes
    /// every rank fail if one did. Each open is one file-system operation.
    pub fn file_open(
        &mut self,
        comm: MPI_Comm,
        name: &str,
        amode: i32,
        info: Info,
    ) -> MpiResult<MPI_File> {
        self.comms.get(comm)?;
        check_amode(amode)?;
        let hints = Hints::from_info(&info, None)?;
        let dup = self.comm_dup(comm, Vec::new())?;
        let cc = CollComm::of(self, dup)?;
        // the same amode everywhere: max of amode and of -amode
        let mut v = [amode, -amode];
        allreduce_i32(self, &cc, &mut v, i32::max);
        if v[0] != -v[1] {
            self.comms.free(dup)?;
            return fail(
                sys::MPI_ERR_NOT_SAME,
                "the ranks gave MPI_File_open different amodes",
            );
        }
        let path = host_path(name);
        // a write-only file is opened for reading too when the host allows
        // it (as ROMIO does: read-modify-write of collective buffering)
        let mut opts = std::fs::OpenOptions::new();
        opts.read(true).write(amode & sys::MPI_MODE_RDONLY == 0);
        let open = |o: &std::fs::OpenOptions| -> std::io::Result<std::fs::File> {
            match o.open(&path) {
                Err(e)
                    if amode & sys::MPI_MODE_WRONLY != 0
                        && e.kind() == std::io::ErrorKind::PermissionDenied =>
                {
                    o.clone().read(false).open(&path)
                }
                r => r,
            }
        };
        let mut result: Result<std::fs::File, MpiError> = Err(MpiError::new(0, ""));
        let mut msg = [0u8; 16];
        if cc.me == 0 {
            let mut o = opts.clone();
            if amode & sys::MPI_MODE_EXCL != 0 {
                o.create_new(true);
            } else if amode & sys::MPI_MODE_CREATE != 0 {
                o.create(true);
            }
            result = open(&o).map_err(|e| io_error(&e, &format!("cannot open \"{name}\"")));
            charge_op(self);
            let class = result.as_ref().err().map_or(0, |e| e.class);
            let nonce = std::process::id() as u64
                ^ std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64);
            msg[..4].copy_from_slice(&class.to_le_bytes());
            msg[8..].copy_from_slice(&nonce.to_le_bytes());
        }
        coll::bcast::bcast(&mut self::comm(self, &cc), &mut msg, 0);
        let class0 = i32::from_le_bytes(msg[..4].try_into().expect("4 bytes"));
        let nonce = u64::from_le_bytes(msg[8..].try_into().expect("8 bytes"));
        if cc.me != 0 {
            result = if class0 != 0 {
                Err(MpiError::new(
                    class0,
                    format!("cannot open \"{name}\" (rank 0 of the communicator failed)"),
                ))
            } else {
                let r = open(&opts).map_err(|e| io_error(&e, &format!("cannot open \"{name}\"")));
                charge_op(self);
                r
            };
        }
        let mut err = [result.as_ref().err().map_or(0, |e| e.class)];
        allreduce_i32(self, &cc, &mut err, i32::max);
        let host = match result {
            Ok(h) if err[0] == 0 => h,
            Ok(_) => {
                self.comms.free(dup)?;
                return fail(
                    err[0],
                    format!("cannot open \"{name}\" (another rank failed)"),
                );
            }
            Err(e) => {
                self.comms.free(dup)?;
                return Err(e);
            }
        };
        let aggregators = aggregators(self, &cc, hints.cb_nodes);
        let byte = self.types.get(sys::MPI_BYTE)?;
        let mut f = FileObj {
            comm: dup,
            cc,
            name: name.to_string(),
            shfp: shfp_path(&path, nonce),
            path,
            amode,
            host,
            view: View::bytes(byte),
            fp: 0,
            atomic: false,
            hints,
            extra: Hints::extra(&info),
            aggregators,
            errhandler: self.io.null_errhandler,
            split: None,
        };
        if amode & sys::MPI_MODE_APPEND != 0 {
            // both pointers start at the end of the file
            let size = f.host.metadata().map(|m| m.len()).unwrap_or(0);
            f.fp = size;
            if f.cc.me == 0 && size > 0 {
                super::shared::set(&f.shfp, size)
                    .map_err(|e| io_error(&e, "cannot set the shared file pointer"))?;
            }
        }
        let h = self.io.next;
        self.io.next += 1;
        self.io.files.insert(h, f);
        Ok(h)
    }

    /// MPI_File_close: a barrier (ROMIO's, before the shared pointer's side
    /// file goes), then each rank closes (one operation); with
    /// MPI_MODE_DELETE_ON_CLOSE rank 0 deletes the file after a second
    /// barrier (one more operation there).
    pub fn file_close(&mut self, fh: MPI_File) -> MpiResult<()> {
        let f = self.io.get(fh)?;
        if let Some((name, _)) = f.split {
            return fail(
                sys::MPI_ERR_OTHER,
                format!("the split collective {name} has not been ended"),
            );
        }
        let cc = f.cc.clone();
        coll::barrier::barrier(&mut comm(self, &cc));
        let f = self.io.files.remove(&fh).expect("checked");
        if cc.me == 0 {
            let _ = std::fs::remove_file(&f.shfp);
        }
        drop(f.host);
        charge_op(self);
        if f.amode & sys::MPI_MODE_DELETE_ON_CLOSE != 0 {
            coll::barrier::barrier(&mut comm(self, &cc));
            if cc.me == 0 {
                charge_op(self);
                std::fs::remove_file(&f.path)
                    .map_err(|e| io_error(&e, &format!("cannot delete \"{}\"", f.name)))?;
            }
        }
        self.comms.free(f.comm)?;
        Ok(())
    }

    /// MPI_File_delete: local, one operation.
    pub fn file_delete(&mut self, name: &str) -> MpiResult<()> {
        charge_op(self);
        std::fs::remove_file(host_path(name))
            .map_err(|e| io_error(&e, &format!("cannot delete \"{name}\"")))
    }

    /// The same value on every rank of the file (ROMIO broadcasts rank 0's
    /// and compares): MPI_ERR_ARG naming `what` otherwise.
    pub(crate) fn file_same(&mut self, fh: MPI_File, v: i64, what: &str) -> MpiResult<()> {
        let cc = self.io.get(fh)?.cc.clone();
        let mut b = v.to_le_bytes();
        coll::bcast::bcast(&mut comm(self, &cc), &mut b, 0);
        if i64::from_le_bytes(b) != v {
            return fail(
                sys::MPI_ERR_ARG,
                format!(
                    "{what} differs between the ranks ({v} here, {} on rank 0)",
                    i64::from_le_bytes(b)
                ),
            );
        }
        Ok(())
    }

    /// MPI_File_set_size / MPI_File_preallocate: the same size everywhere
    /// (a broadcast), rank 0 resizes (one operation), then a barrier.
    pub fn file_resize(&mut self, fh: MPI_File, size: i64, grow_only: bool) -> MpiResult<()> {
        let f = self.io.get(fh)?;
        if size < 0 {
            return fail(sys::MPI_ERR_ARG, format!("invalid size {size} (negative)"));
        }
        if f.amode & sys::MPI_MODE_SEQUENTIAL != 0 {
            return fail(
                sys::MPI_ERR_UNSUPPORTED_OPERATION,
                "cannot resize a file opened with MPI_MODE_SEQUENTIAL",
            );
        }
        if f.amode & sys::MPI_MODE_RDONLY != 0 {
            return fail(
                sys::MPI_ERR_READ_ONLY,
                "cannot resize a file opened with MPI_MODE_RDONLY",
            );
        }
        self.file_same(fh, size, "the size")?;
        let f = self.io.get(fh)?;
        let cc = f.cc.clone();
        let mut r = Ok(());
        if cc.me == 0 {
            let cur = f.host.metadata().map(|m| m.len()).unwrap_or(0);
            if !grow_only || (size as u64) > cur {
                r = f
                    .host
                    .set_len(size as u64)
                    .map_err(|e| io_error(&e, "cannot resize the file"));
            }
            charge_op(self);
        }
        coll::barrier::barrier(&mut comm(self, &cc));
        r
    }

    /// MPI_File_get_size: one operation (a stat).
    pub fn file_size(&mut self, fh: MPI_File) -> MpiResult<u64> {
        let f = self.io.get(fh)?;
        let n = f
            .host
            .metadata()
            .map_err(|e| io_error(&e, "cannot read the file size"))?
            .len();
        charge_op(self);
        Ok(n)
    }

    /// MPI_File_sync: each rank flushes (one operation), then a barrier.
    pub fn file_sync(&mut self, fh: MPI_File) -> MpiResult<()> {
        let f = self.io.get(fh)?;
        if f.amode & sys::MPI_MODE_RDONLY != 0 {
            return fail(
                sys::MPI_ERR_ACCESS,
                "cannot sync a file opened with MPI_MODE_RDONLY",
            );
        }
        let r = f
            .host
            .sync_data()
            .map_err(|e| io_error(&e, "cannot sync the file"));
        let cc = f.cc.clone();
        charge_op(self);
        coll::barrier::barrier(&mut comm(self, &cc));
        r
    }

    /// MPI_File_set_atomicity: the same flag everywhere (a broadcast).
    pub fn file_set_atomicity(&mut self, fh: MPI_File, flag: bool) -> MpiResult<()> {
        self.io.get(fh)?;
        self.file_same(fh, flag as i64, "the atomicity flag")?;
        self.io.get_mut(fh)?.atomic = flag;
        Ok(())
    }

    /// MPI_File_set_info: the hints ROMIO takes after open (cb_buffer_size,
    /// romio_cb_read / write, the independent buffer sizes); no time.
    pub fn file_set_info(&mut self, fh: MPI_File, info: &Info) -> MpiResult<()> {
        let f = self.io.get_mut(fh)?;
        f.hints = Hints::from_info(info, Some(&f.hints))?;
        for (k, v) in Hints::extra(info).entries() {
            f.extra.set(k, v)?;
        }
        Ok(())
    }

    /// MPI_File_get_info: the hints in use, as ROMIO lists them.
    pub fn file_get_info(&self, fh: MPI_File) -> MpiResult<Info> {
        let f = self.io.get(fh)?;
        let mut i = f.hints.to_info(f.aggregators.len());
        for (k, v) in f.extra.entries() {
            i.set(k, v)?;
        }
        i.set("filename", &f.name)?;
        Ok(i)
    }

    /// MPI_File_get_group.
    pub fn file_group(&mut self, fh: MPI_File) -> MpiResult<sys::MPI_Group> {
        let comm = self.io.get(fh)?.comm;
        let g = self.comms.get(comm)?.group.clone();
        Ok(self.comms.groups.insert(g))
    }

    /// MPI_File_set_errhandler (MPI_FILE_NULL: the default of new files
    /// and of MPI_File_open / delete).
    pub fn file_set_errhandler(&mut self, fh: MPI_File, eh: MPI_Errhandler) -> MpiResult<()> {
        self.errhandlers.check_for(eh, ObjKind::File)?;
        if fh == sys::MPI_FILE_NULL {
            self.io.null_errhandler = eh;
        } else {
            self.io.get_mut(fh)?.errhandler = eh;
        }
        Ok(())
    }

    /// MPI_File_get_errhandler: a new reference to the handler.
    pub fn file_get_errhandler(&mut self, fh: MPI_File) -> MpiResult<MPI_Errhandler> {
        let eh = if fh == sys::MPI_FILE_NULL {
            self.io.null_errhandler
        } else {
            self.io.get(fh)?.errhandler
        };
        self.errhandlers.add_ref(eh);
        Ok(eh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amodes_as_mpich_checks_them() {
        let ok = [
            sys::MPI_MODE_RDONLY,
            sys::MPI_MODE_RDWR | sys::MPI_MODE_CREATE,
            sys::MPI_MODE_WRONLY | sys::MPI_MODE_SEQUENTIAL | sys::MPI_MODE_CREATE,
            sys::MPI_MODE_RDWR | sys::MPI_MODE_DELETE_ON_CLOSE | sys::MPI_MODE_EXCL,
        ];
        for a in ok {
            check_amode(a).unwrap();
        }
        let bad = [
            0,
            sys::MPI_MODE_RDONLY | sys::MPI_MODE_RDWR,
            sys::MPI_MODE_RDONLY | sys::MPI_MODE_CREATE,
            sys::MPI_MODE_RDONLY | sys::MPI_MODE_EXCL,
            sys::MPI_MODE_RDWR | sys::MPI_MODE_SEQUENTIAL,
            sys::MPI_MODE_RDWR | 0x10000,
        ];
        for a in bad {
            assert_eq!(
                check_amode(a).unwrap_err().class,
                sys::MPI_ERR_AMODE,
                "{a:#x}"
            );
        }
    }

    #[test]
    fn paths_and_errors() {
        assert_eq!(host_path("ufs:/tmp/x"), PathBuf::from("/tmp/x"));
        assert_eq!(host_path("data/x"), PathBuf::from("data/x"));
        assert_eq!(
            shfp_path(std::path::Path::new("d/f.dat"), 255),
            PathBuf::from("d/.f.dat.vaced-shfp.ff")
        );
        let e = std::io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(io_error(&e, "x").class, sys::MPI_ERR_NO_SUCH_FILE);
        let e = std::io::Error::from_raw_os_error(libc::EEXIST);
        assert_eq!(io_error(&e, "x").class, sys::MPI_ERR_FILE_EXISTS);
        let e = std::io::Error::from_raw_os_error(libc::EIO);
        assert_eq!(io_error(&e, "x").class, sys::MPI_ERR_IO);
    }
}
