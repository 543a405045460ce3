//! The `vaced` command (also `mpicc`, `mpicxx`, `mpic++`, `mpif77`, `mpif90`,
//! `mpifort`, `mpirun`, `mpiexec` when invoked under those names).

use std::ffi::OsString;
use std::path::Path;
use vaced::launch::{self, shellenv, wrappers};

const USAGE: &str = "\
usage: vaced COMMAND [ARGS...]

Run real MPI programs on this host and predict their run time on a target machine.

commands:
  env                      print the shell line that puts mpicc, mpicxx, mpif77,
                           mpif90, mpifort, mpirun, mpiexec on PATH:
                             eval \"$(vaced env)\"
  run [MPIRUN ARGS...]     same as mpirun (see `vaced run --help`)
  target list              list the preset target machines
  target show NAME|FILE    print a target's resolved configuration
  target hops NAME|FILE R0 R1...
                           the node of each rank, hop(R0, Ri) and the latency between them
  calibrate [--run] [ARGS] build vaced-calibrate with this machine's MPI and
                           print (or --run) the command that measures it and
                           writes a target file (see `vaced calibrate --help`)
  plot REPORT.json [-o DIR]
                           draw SVG figures of an `mpirun --report` JSON file
                           (see `vaced plot --help`)
  inspect /vaced-JOB       print what every rank of a running job publishes
                           (its segment is /dev/shm/vaced-JOB; for a job
                           that seems stuck)
  --help, -h               show this help
  --version, -V            show the version
";

fn main() {
    let mut argv = std::env::args_os();
    let argv0 = argv.next().unwrap_or_else(|| "vaced".into());
    let rest: Vec<OsString> = argv.collect();
    let name = launch::args::command_name(&argv0);
    let code = if let Some(w) = wrappers::Wrapper::from_name(&name) {
        wrappers::run(&name, w, &rest)
    } else if shellenv::LAUNCHER_NAMES.contains(&name.as_str()) {
        launch::mpirun(&name, &rest)
    } else {
        vaced(&rest)
    };
    std::process::exit(code);
}

fn usage_error(msg: &str) -> i32 {
    eprintln!("vaced: {msg}\n\n{USAGE}");
    launch::EXIT_USAGE
}

fn vaced(args: &[OsString]) -> i32 {
    let Some(first) = args.first() else {
        return usage_error("missing command");
    };
    let rest = &args[1..];
    match first.to_str() {
        Some("run") => launch::mpirun("vaced run", rest),
        Some("env") if rest.is_empty() => env(),
        Some("env") => usage_error("`vaced env` takes no arguments"),
        Some("target") => target(rest),
        Some("inspect") => inspect(rest),
        Some("calibrate") => launch::calibrate::main(rest),
        Some("plot") => vaced::plot::main(rest),
        Some("--help" | "-h" | "help") => {
            print!("{USAGE}");
            0
        }
        Some("--version" | "-V") => {
            println!("vaced {}", env!("CARGO_PKG_VERSION"));
            0
        }
        _ => usage_error(&format!("unknown command `{}`", first.to_string_lossy())),
    }
}

/// `vaced inspect /vaced-<job>`: print what every rank of a running job
/// publishes (a debugging aid for a job that seems stuck).
fn inspect(args: &[OsString]) -> i32 {
    let [name] = args else {
        return usage_error("`vaced inspect` takes the segment name (/vaced-...)");
    };
    let name = name.to_string_lossy();
    match vaced::transport::Segment::attach(&name) {
        Ok(seg) => {
            print!("{}", seg.describe());
            0
        }
        Err(e) => {
            eprintln!("vaced inspect: {e}");
            1
        }
    }
}

fn env() -> i32 {
    let exe = match std::env::current_exe().and_then(|e| e.canonicalize()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("vaced env: cannot locate the vaced executable: {e}");
            return 1;
        }
    };
    match shellenv::install_links(&exe) {
        Ok(dir) => {
            println!("{}", shellenv::export_line(&dir));
            0
        }
        Err(e) => {
            eprintln!(
                "vaced env: cannot create the command links in {}: {e}",
                exe.parent()
                    .unwrap_or(Path::new("/"))
                    .join(shellenv::BIN_DIR)
                    .display()
            );
            1
        }
    }
}

/// `vaced target hops`: the node of each rank and, from the first rank to
/// each other, hop(x, y), L(0) (how long after it leaves a message lands)
/// and the pair's eager limit.
fn hops_table(m: &vaced::model::Model, ranks: &[u32]) -> String {
    use vaced::model::units::{format_size, format_time};
    let x = ranks[0];
    let mut out = format!("rank {x}: node {}\n", m.node_of(x));
    for &y in &ranks[1..] {
        out.push_str(&format!(
            "rank {y}: node {}, hop({x}, {y}) = {}, L(0) = {}, eager limit {}\n",
            m.node_of(y),
            m.hops(x, y),
            format_time(m.pair_latency(x, y)),
            format_size(m.eager_limit_for(x, y))
        ));
    }
    out
}

fn target(args: &[OsString]) -> i32 {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["list"] => {
            for n in vaced::model::preset_names() {
                println!("{n}");
            }
            0
        }
        ["show", spec] => {
            let spec = launch::job::resolve_target(Some(spec), None);
            match vaced::model::Model::load(&spec) {
                Ok(m) => {
                    print!("{}", m.to_toml());
                    0
                }
                Err(e) => {
                    eprintln!("vaced target show: {e}");
                    launch::EXIT_USAGE
                }
            }
        }
        ["hops", spec, ranks @ ..] if ranks.len() >= 2 => {
            let spec = launch::job::resolve_target(Some(spec), None);
            let m = match vaced::model::Model::load(&spec) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("vaced target hops: {e}");
                    return launch::EXIT_USAGE;
                }
            };
            let mut rs = Vec::new();
            for r in ranks {
                match r.parse::<u32>() {
                    Ok(v) => rs.push(v),
                    Err(_) => {
                        return usage_error(&format!(
                            "`vaced target hops`: `{r}` is not a rank number"
                        ))
                    }
                }
            }
            if let Err(e) = m.topology.check_ranks(rs.iter().max().unwrap() + 1) {
                eprintln!("vaced target hops: rank {}: {e}", rs.iter().max().unwrap());
                return launch::EXIT_USAGE;
            }
            print!("{}", hops_table(&m, &rs));
            0
        }
        ["hops", ..] => usage_error("`vaced target hops` needs NAME|FILE and at least two ranks"),
        ["list", ..] => usage_error("`vaced target list` takes no arguments"),
        ["show", _, _, ..] => usage_error("`vaced target show` takes one NAME|FILE"),
        ["show"] => usage_error("`vaced target show` needs a preset name or a TOML file"),
        [] => usage_error("`vaced target` needs `list` or `show NAME|FILE`"),
        [other, ..] => usage_error(&format!("unknown `vaced target` command `{other}`")),
    }
}
