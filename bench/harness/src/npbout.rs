//! Parsing the NPB result block a bench-npb kernel prints at its end
//! (" CG Benchmark Completed.", " Class = S", " Time exact (s) = ...",
//! " Verification = SUCCESSFUL", ...).

/// The figures of one NPB result block.
#[derive(Clone, Debug, PartialEq)]
pub struct NpbResult {
    /// "CG", "IS", ...
    pub name: String,
    pub class: String,
    pub processes: Option<u32>,
    /// "Time exact (s)", else "Time in seconds".
    pub time_s: f64,
    pub mops: Option<f64>,
    pub verified: bool,
}

/// Finds the last result block in a kernel's standard output.
pub fn parse(stdout: &str) -> Result<NpbResult, String> {
    let start = stdout
        .rfind("Benchmark Completed")
        .ok_or("no NPB result block (\"Benchmark Completed\") in the output")?;
    let line_start = stdout[..start].rfind('\n').map_or(0, |i| i + 1);
    let name = stdout[line_start..start].trim().to_string();
    let mut r = NpbResult {
        name,
        class: String::new(),
        processes: None,
        time_s: f64::NAN,
        mops: None,
        verified: false,
    };
    let mut exact = None;
    let mut rounded = None;
    let mut verification = None;
    for line in stdout[start..].lines().skip(1) {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        let num = || {
            v.parse::<f64>()
                .map_err(|_| format!("NPB result block: `{k}` is not a number: `{v}`"))
        };
        match k {
            "Class" => r.class = v.to_string(),
            "Total processes" => r.processes = Some(num()? as u32),
            "Time exact (s)" => exact = Some(num()?),
            "Time in seconds" => rounded = Some(num()?),
            "Mop/s total" => r.mops = Some(num()?),
            "Verification" => verification = Some(v.to_string()),
            _ => {}
        }
    }
    r.time_s = exact
        .or(rounded)
        .ok_or("NPB result block without `Time exact (s)` or `Time in seconds`")?;
    r.verified = match verification.as_deref() {
        Some("SUCCESSFUL") => true,
        Some(_) => false,
        None => return Err("NPB result block without `Verification`".into()),
    };
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const C_BLOCK: &str = "\n\n IS Benchmark Completed.\n Class           =                        S\n Size            =                    65536\n Iterations      =                       10\n Time in seconds =                     0.01\n Time exact (s)  =               0.01126037\n Total processes =                        4\n Mop/s total     =                    58.20\n Mop/s/process   =                    14.55\n Operation type  =              keys ranked\n Verification    =               SUCCESSFUL\n Version         =    3.3 (vaced bench-npb)\n\n";

    const F_BLOCK: &str = " NAS Parallel Benchmarks 3.3 -- CG Benchmark\n iteration  1 ...\n\n\n CG Benchmark Completed.\n Class           =                        W\n Size            =                     7000\n Iterations      =                       15\n Time in seconds =                     1.25\n Time exact (s)  =  1.2534567890123457E+00\n Total processes =                       16\n Process grid    =                    4 x 4\n Mop/s total     =                   335.50\n Mop/s/process   =                    20.97\n Operation type  =           floating point\n Verification    =             UNSUCCESSFUL\n Version         =    3.3 (vaced bench-npb)\n\n";

    #[test]
    fn c_block() {
        let r = parse(C_BLOCK).unwrap();
        assert_eq!(
            r,
            NpbResult {
                name: "IS".into(),
                class: "S".into(),
                processes: Some(4),
                time_s: 0.01126037,
                mops: Some(58.20),
                verified: true,
            }
        );
    }

    #[test]
    fn fortran_block() {
        let r = parse(F_BLOCK).unwrap();
        assert_eq!(r.name, "CG");
        assert_eq!(r.class, "W");
        assert_eq!(r.processes, Some(16));
        assert_eq!(r.time_s, 1.2534567890123457);
        assert_eq!(r.mops, Some(335.5));
        assert!(!r.verified);
    }

    #[test]
    fn rounded_time_when_no_exact_one() {
        let t = C_BLOCK.replace(" Time exact (s)  =               0.01126037\n", "");
        assert_eq!(parse(&t).unwrap().time_s, 0.01);
    }

    #[test]
    fn errors_name_what_is_missing() {
        assert_eq!(
            parse("hello\n").unwrap_err(),
            "no NPB result block (\"Benchmark Completed\") in the output"
        );
        let t = C_BLOCK.replace("Verification    =               SUCCESSFUL\n", "");
        assert_eq!(
            parse(&t).unwrap_err(),
            "NPB result block without `Verification`"
        );
        let t = C_BLOCK.replace("58.20", "lots");
        assert_eq!(
            parse(&t).unwrap_err(),
            "NPB result block: `Mop/s total` is not a number: `lots`"
        );
    }
}
