//! Finding the program to run before anything is spawned: a path with a `/` is
//! taken as is, a bare name is looked up in `$PATH`, like a shell does.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Why the program cannot be run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramError {
    NotFound(OsString),
    NotInPath(OsString),
    NotExecutable(PathBuf),
    IsDirectory(PathBuf),
}

impl std::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgramError::NotFound(p) => {
                write!(f, "program `{}` not found", p.to_string_lossy())
            }
            ProgramError::NotInPath(p) => write!(
                f,
                "program `{}` not found in PATH (give its path, e.g. `./{}`, to run a local file)",
                p.to_string_lossy(),
                p.to_string_lossy()
            ),
            ProgramError::NotExecutable(p) => {
                write!(f, "program `{}` is not executable", p.display())
            }
            ProgramError::IsDirectory(p) => {
                write!(f, "program `{}` is a directory", p.display())
            }
        }
    }
}

fn check(path: &Path) -> Result<bool, ProgramError> {
    match std::fs::metadata(path) {
        Err(_) => Ok(false),
        Ok(m) if m.is_dir() => Err(ProgramError::IsDirectory(path.to_path_buf())),
        Ok(m) if m.permissions().mode() & 0o111 == 0 => {
            Err(ProgramError::NotExecutable(path.to_path_buf()))
        }
        Ok(_) => Ok(true),
    }
}

/// The path to execute for `program`, searched in `path_var` (`$PATH`) when it
/// has no `/`.
pub fn resolve(program: &OsStr, path_var: Option<&OsStr>) -> Result<PathBuf, ProgramError> {
    if program.is_empty() {
        return Err(ProgramError::NotFound(program.to_os_string()));
    }
    let as_path = Path::new(program);
    if program.as_encoded_bytes().contains(&b'/') {
        return match check(as_path)? {
            true => Ok(as_path.to_path_buf()),
            false => Err(ProgramError::NotFound(program.to_os_string())),
        };
    }
    let mut first_err = None;
    for dir in std::env::split_paths(path_var.unwrap_or_default()) {
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir
        };
        let cand = dir.join(program);
        match check(&cand) {
            Ok(true) => return Ok(cand),
            Ok(false) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| ProgramError::NotInPath(program.to_os_string())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("vaced-prog-test-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn explicit_paths() {
        let d = scratch("explicit");
        let exe = d.join("app");
        fs::write(&exe, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
        let data = d.join("data");
        fs::write(&data, "x").unwrap();
        fs::set_permissions(&data, fs::Permissions::from_mode(0o644)).unwrap();

        assert_eq!(resolve(exe.as_os_str(), None), Ok(exe.clone()));
        assert_eq!(
            resolve(data.as_os_str(), None),
            Err(ProgramError::NotExecutable(data.clone()))
        );
        assert_eq!(
            resolve(d.as_os_str(), None),
            Err(ProgramError::IsDirectory(d.clone()))
        );
        let missing = d.join("missing");
        assert_eq!(
            resolve(missing.as_os_str(), None).unwrap_err().to_string(),
            format!("program `{}` not found", missing.display())
        );
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn path_search() {
        let d = scratch("search");
        let a = d.join("a");
        let b = d.join("b");
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let exe = b.join("tool");
        fs::write(&exe, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([&a, &b]).unwrap();

        assert_eq!(resolve(OsStr::new("tool"), Some(&path)), Ok(exe));
        assert_eq!(
            resolve(OsStr::new("nosuchtool"), Some(&path))
                .unwrap_err()
                .to_string(),
            "program `nosuchtool` not found in PATH (give its path, e.g. `./nosuchtool`, to run a local file)"
        );
        fs::remove_dir_all(&d).unwrap();
    }
}
