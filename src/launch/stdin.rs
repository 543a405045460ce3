//! Rank 0's standard input. A file or pipe is handed over as is. A terminal is
//! forwarded through a pipe by a thread of the launcher: the ranks run in their
//! own process group, which is not the terminal's foreground group, so reading
//! the terminal directly would stop them (SIGTTIN).

use crate::transport::process as os;
use std::io::{self, IsTerminal, PipeWriter};
use std::process::Stdio;

/// Rank 0's stdin, and the pipe end to feed when it is forwarded.
pub fn rank0_stdin() -> io::Result<(Stdio, Option<PipeWriter>)> {
    if !io::stdin().is_terminal() {
        return Ok((Stdio::inherit(), None));
    }
    let (r, w) = io::pipe()?;
    Ok((Stdio::from(r), Some(w)))
}

/// Copy our stdin into `w` until either side ends. If the launcher runs in the
/// background, the read fails (EIO, SIGTTIN being ignored) and rank 0 sees EOF.
pub fn start_forwarding(mut w: PipeWriter) {
    os::ignore_sigttin();
    let spawned = std::thread::Builder::new()
        .name("stdin-forward".into())
        .spawn(move || {
            let _ = io::copy(&mut io::stdin().lock(), &mut w);
        });
    if let Err(e) = spawned {
        eprintln!("warning: cannot forward stdin to rank 0: {e}");
    }
}
