//! Where MPICH's test suite comes from: `--source DIR` (an extracted tree),
//! else the cache directory, filled by `apt-get source mpich` (the release
//! Debian ships). When apt has no deb-src entry, one is added first: a
//! `Types: deb-src` copy of each `Types: deb` stanza of
//! `<apt etc>/sources.list.d/debian.sources`, in a file of its own
//! (`vaced-conformance-src.sources`), then `apt-get update`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The name of the sources file we add.
pub const SRC_FILE: &str = "vaced-conformance-src.sources";

/// test/mpi of an MPICH tree: `dir` itself, `dir/test/mpi`, or
/// `dir/mpich-*/test/mpi`.
pub fn find_test_mpi(dir: &Path) -> Option<PathBuf> {
    let is = |p: &Path| p.join("runtests.in").is_file() && p.join("util/mtest.c").is_file();
    if is(dir) {
        return Some(dir.to_path_buf());
    }
    let t = dir.join("test/mpi");
    if is(&t) {
        return Some(t);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path().join("test/mpi"))
        .filter(|p| is(p))
        .collect();
    found.sort();
    found.pop()
}

/// The deb822 stanzas of `text` whose Types are `deb`, turned into `deb-src`.
pub fn deb_src_stanzas(text: &str) -> String {
    let mut out = String::new();
    for stanza in text.split("\n\n") {
        let lines: Vec<&str> = stanza.lines().filter(|l| !l.starts_with('#')).collect();
        let is_deb = lines.iter().any(|l| {
            l.strip_prefix("Types:")
                .is_some_and(|v| v.split_whitespace().any(|t| t == "deb"))
        });
        if !is_deb {
            continue;
        }
        for l in lines {
            if l.starts_with("Types:") {
                out.push_str("Types: deb-src\n");
            } else if !l.trim().is_empty() {
                out.push_str(l);
                out.push('\n');
            }
        }
        out.push('\n');
    }
    out
}

/// `program`, through sudo when we are not root (as scripts/deps.sh does).
fn as_root(program: &str) -> Command {
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        Command::new(program)
    } else {
        let mut c = Command::new("sudo");
        c.arg(program);
        c
    }
}

/// apt-get (as root) with our configuration directory (`-o Dir::Etc::...`
/// when it is not /etc/apt).
fn apt_root(etc: &Path) -> Command {
    with_etc(as_root("apt-get"), etc)
}

/// apt-get with our configuration directory.
fn apt(etc: &Path) -> Command {
    with_etc(Command::new("apt-get"), etc)
}

fn with_etc(mut c: Command, etc: &Path) -> Command {
    if etc != Path::new("/etc/apt") {
        c.arg("-o")
            .arg(format!(
                "Dir::Etc::sourcelist={}",
                etc.join("sources.list").display()
            ))
            .arg("-o")
            .arg(format!(
                "Dir::Etc::sourceparts={}",
                etc.join("sources.list.d").display()
            ));
    }
    c
}

fn status(mut c: Command) -> Result<(), String> {
    let s = c.status().map_err(|e| format!("{c:?}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{c:?} failed ({s})"))
    }
}

/// Whether apt knows a source package `mpich` (a deb-src entry exists).
fn has_source(etc: &Path) -> bool {
    let mut c = apt(etc);
    c.args(["source", "--print-uris", "mpich"]);
    c.output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains(".dsc"))
        .unwrap_or(false)
}

/// Add the deb-src entry (and `apt-get update`) when apt lacks one.
pub fn ensure_deb_src(etc: &Path) -> Result<(), String> {
    if has_source(etc) {
        return Ok(());
    }
    let deb = etc.join("sources.list.d/debian.sources");
    let text = std::fs::read_to_string(&deb).map_err(|e| format!("{}: {e}", deb.display()))?;
    let stanzas = deb_src_stanzas(&text);
    if stanzas.is_empty() {
        return Err(format!(
            "{}: no `Types: deb` entry to mirror",
            deb.display()
        ));
    }
    let file = etc.join("sources.list.d").join(SRC_FILE);
    eprintln!(
        "vaced-conformance: apt has no deb-src entry: writing {} (the deb entries of {} as deb-src) and running apt-get update",
        file.display(),
        deb.display()
    );
    let mut tee = as_root("tee");
    tee.arg(&file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    let mut child = tee.spawn().map_err(|e| format!("{tee:?}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(stanzas.as_bytes())
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    let s = child.wait().map_err(|e| format!("{tee:?}: {e}"))?;
    if !s.success() {
        return Err(format!("cannot write {} ({s})", file.display()));
    }
    let mut c = apt_root(etc);
    c.args(["update", "-q"]);
    status(c)
}

/// test/mpi of the MPICH source: `--source`, else the cache (filled by
/// `apt-get source mpich` when empty).
pub fn obtain(source: Option<&Path>, cache: &Path, etc: &Path) -> Result<PathBuf, String> {
    if let Some(s) = source {
        return find_test_mpi(s)
            .ok_or_else(|| format!("{}: no MPICH test/mpi tree there", s.display()));
    }
    if let Some(t) = find_test_mpi(cache) {
        return Ok(t);
    }
    std::fs::create_dir_all(cache).map_err(|e| format!("{}: {e}", cache.display()))?;
    ensure_deb_src(etc)?;
    eprintln!(
        "vaced-conformance: fetching the MPICH source: apt-get source mpich (in {})",
        cache.display()
    );
    let mut c = apt(etc);
    c.args(["source", "-q", "mpich"]).current_dir(cache);
    if let Err(e) = status(c) {
        // Without dpkg-dev (dpkg-source) apt downloads but cannot unpack:
        // unpack the upstream tarball ourselves.
        let orig = std::fs::read_dir(cache)
            .ok()
            .and_then(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .find(|p| p.to_string_lossy().contains(".orig.tar"))
            })
            .ok_or(e)?;
        eprintln!(
            "vaced-conformance: unpacking {} with tar (dpkg-source failed)",
            orig.display()
        );
        let mut t = Command::new("tar");
        t.arg("xf").arg(&orig).current_dir(cache);
        status(t)?;
    }
    find_test_mpi(cache)
        .ok_or_else(|| format!("{}: no test/mpi after apt-get source", cache.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_deb_stanzas() {
        let text = "Types: deb\n# comment\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\nTypes: deb-src\nURIs: http://x\nSuites: y\nComponents: main\n";
        assert_eq!(
            deb_src_stanzas(text),
            "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /k.gpg\n\n"
        );
    }
}
