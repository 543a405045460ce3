//! `vaced plot REPORT.json [-o DIR]`: SVG figures of a `mpirun --report`
//! JSON file, drawn with plotters' SVG backend. `NAME-ranks.svg` stacks each
//! rank's computation, communication and waiting (bins of ranks with min ..
//! max whiskers above 128 ranks, see `ranks`); `NAME-summary.svg` gives the
//! spread over ranks and the split of the job's rank-time (`summary`); a
//! what-if run's report also gets `NAME-whatif.svg`, every configuration's
//! prediction (`whatif`).
//! `input` reads the report, `style` holds what the figures share.
pub mod input;
pub mod ranks;
pub mod style;
pub mod summary;
pub mod whatif;

use std::path::{Path, PathBuf};

/// The end of `vaced plot --help`.
pub const AFTER_HELP: &str = "\
Draws the figures of a report written by `mpirun --report REPORT.json`:
  DIR/NAME-ranks.svg    per rank, stacked: computation, communication, waiting
                        (above 128 ranks: bins of ranks, mean bars, min..max whiskers)
  DIR/NAME-summary.svg  mean and min..max over ranks, and the split of the rank-time
  DIR/NAME-whatif.svg   (a what-if run's report) each configuration's predicted time
NAME is the report's file name without .json; DIR defaults to the report's directory.
";

/// Reads `report` and writes its figures into `dir` (created if needed);
/// returns the files written.
pub fn run(report: &Path, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let data = input::read(report).map_err(|e| e.to_string())?;
    let name = report
        .file_stem()
        .map_or("report".into(), |s| s.to_string_lossy().into_owned());
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut figures = vec![
        ("ranks", ranks::render(&data, &name)?),
        ("summary", summary::render(&data, &name)?),
    ];
    let raw: serde_json::Value = std::fs::read_to_string(report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    if let Some(cs) = whatif::configurations(&raw) {
        figures.push(("whatif", whatif::render(&cs, &name)?));
    }
    let mut written = Vec::new();
    for (what, svg) in figures {
        let path = dir.join(format!("{name}-{what}.svg"));
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// `vaced plot REPORT [-o DIR]` (DIR: the report's directory by default):
/// draw, print the files written; the exit code.
pub fn command(report: &Path, dir: Option<&Path>) -> i32 {
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| match report.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        });
    match run(report, &dir) {
        Ok(files) => {
            for f in files {
                println!("{}", f.display());
            }
            0
        }
        Err(e) => {
            eprintln!("vaced plot: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests;
