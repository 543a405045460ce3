//! `vaced env`: a directory of links named like the MPI commands (mpicc,
//! mpirun...) pointing at the vaced executable, and the shell line that puts it
//! first on PATH.

use super::wrappers::Wrapper;
use std::io;
use std::path::{Path, PathBuf};

/// The launcher's names (besides the compiler wrappers').
pub const LAUNCHER_NAMES: [&str; 2] = ["mpirun", "mpiexec"];

/// Name of the link directory, next to the executable.
pub const BIN_DIR: &str = "vaced-bin";

/// Every link name `vaced env` creates.
pub fn link_names() -> Vec<&'static str> {
    Wrapper::NAMES
        .iter()
        .chain(LAUNCHER_NAMES.iter())
        .copied()
        .collect()
}

/// Create (or repair) `<dir of exe>/vaced-bin/NAME -> exe` for every name;
/// returns the directory. Safe to run again and concurrently.
pub fn install_links(exe: &Path) -> io::Result<PathBuf> {
    links_beside(
        exe,
        BIN_DIR,
        link_names().into_iter().map(|n| (n, exe.to_path_buf())),
    )
}

/// Create (or repair) `<dir of exe>/<dir>/NAME -> TARGET` for every (NAME,
/// TARGET) of `links`; returns the directory. Safe to run again and
/// concurrently.
pub fn links_beside<'a>(
    exe: &Path,
    dir: &str,
    links: impl IntoIterator<Item = (&'a str, PathBuf)>,
) -> io::Result<PathBuf> {
    let dir = exe
        .parent()
        .ok_or_else(|| io::Error::other("the vaced executable has no parent directory"))?
        .join(dir);
    std::fs::create_dir_all(&dir)?;
    for (name, target) in links {
        let link = dir.join(name);
        if std::fs::read_link(&link).is_ok_and(|t| t == target) {
            continue;
        }
        // A fresh link renamed over the old one: atomic, no window without it.
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&target, &tmp)?;
        std::fs::rename(&tmp, &link)?;
    }
    Ok(dir)
}

/// `export PATH="<dir>:$PATH"`, with `dir` escaped for double quotes.
pub fn export_line(dir: &Path) -> String {
    format!("export PATH=\"{}:$PATH\"", escaped(dir))
}

/// `path` in double quotes, escaped for the shell.
pub fn quote(path: &Path) -> String {
    format!("\"{}\"", escaped(path))
}

/// `path` escaped for double quotes.
fn escaped(path: &Path) -> String {
    let mut d = String::new();
    for c in path.to_string_lossy().chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            d.push('\\');
        }
        d.push(c);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_created_and_repaired() {
        let d = std::env::temp_dir().join(format!("vaced-env-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        let exe = d.join("vaced");
        std::fs::write(&exe, "").unwrap();
        let bin = install_links(&exe).unwrap();
        assert_eq!(bin, d.join("vaced-bin"));
        // A stale link is replaced; running again changes nothing.
        std::fs::remove_file(bin.join("mpirun")).unwrap();
        std::os::unix::fs::symlink("/elsewhere", bin.join("mpirun")).unwrap();
        assert_eq!(install_links(&exe).unwrap(), bin);
        let mut names: Vec<String> = std::fs::read_dir(&bin)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                assert_eq!(std::fs::read_link(e.path()).unwrap(), exe);
                e.file_name().into_string().unwrap()
            })
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["mpic++", "mpicc", "mpicxx", "mpiexec", "mpif77", "mpif90", "mpifort", "mpirun"]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn export_line_escapes() {
        assert_eq!(
            export_line(Path::new("/a/b/vaced-bin")),
            "export PATH=\"/a/b/vaced-bin:$PATH\""
        );
        assert_eq!(
            export_line(Path::new("/we$ird \"dir\"")),
            "export PATH=\"/we\\$ird \\\"dir\\\":$PATH\""
        );
    }
}
