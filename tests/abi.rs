//! The exported C ABI as a C program sees it: every function declared in
//! include/mpi.h links against target/<profile>/libvaced.so (MPI_ and PMPI_),
//! the pointer constants agree with mpi.h, and the calls that work before
//! MPI_Init give the documented results.
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>/, where cargo put libvaced.so next to this test's deps/.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    assert!(
        dir.join("libvaced.so").exists(),
        "libvaced.so not found in {}",
        dir.display()
    );
    dir
}

/// Names of the functions declared in mpi.h (`int MPI_X(` / `double PMPI_X(`).
fn declared_functions() -> Vec<String> {
    let h = std::fs::read_to_string(manifest().join("include/mpi.h")).unwrap();
    h.lines()
        .filter_map(|l| {
            let rest = l
                .strip_prefix("int ")
                .or_else(|| l.strip_prefix("double "))?;
            let name = rest.split('(').next()?.trim();
            (name.starts_with("MPI") || name.starts_with("PMPI")).then(|| name.to_string())
        })
        .collect()
}

/// Compile `src` against mpi.h and libvaced.so, run it, return stdout,
/// stderr and the exit code.
fn build_and_run(name: &str, src: &str) -> (String, String, Option<i32>) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join(format!("{name}.c"));
    let exe = dir.join(name);
    std::fs::write(&c, src).unwrap();
    let lib = lib_dir();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let out = Command::new(&cc)
        .arg("-Wall")
        .arg("-Werror")
        .arg("-I")
        .arg(manifest().join("include"))
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .arg("-lvaced")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cc}: {e}"));
    assert!(
        out.status.success(),
        "compiling {} failed:\n{}",
        c.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    run(&exe)
}

fn run(exe: &Path) -> (String, String, Option<i32>) {
    let out = Command::new(exe).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn every_declared_function_is_exported() {
    let names = declared_functions();
    // 52 calls, each as MPI_ and PMPI_
    assert_eq!(names.len(), 104);
    for n in names.iter().filter(|n| n.starts_with("MPI")) {
        assert!(
            names.contains(&format!("P{n}")),
            "{n} has no PMPI_ twin in mpi.h"
        );
    }

    // The linker resolves the address of each against libvaced.so.
    let mut src = String::from("#include <stdio.h>\n#include <mpi.h>\n");
    src.push_str("typedef void (*fn_t)(void);\nstatic const fn_t table[] = {\n");
    for n in &names {
        src.push_str(&format!("    (fn_t){n},\n"));
    }
    src.push_str("};\nint main(void) {\n    int n = 0;\n");
    src.push_str(
        "    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) n += table[i] != 0;\n",
    );
    src.push_str("    printf(\"%d\\n\", n);\n    return 0;\n}\n");
    let (out, err, code) = build_and_run("abi_exports", &src);
    assert_eq!(code, Some(0), "stderr: {err}");
    assert_eq!(out.trim(), "104");

    // And each is a defined, global, dynamic symbol.
    let nm = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(lib_dir().join("libvaced.so"))
        .output()
        .expect("nm (binutils) is needed");
    let syms = String::from_utf8_lossy(&nm.stdout);
    let exported: Vec<&str> = syms
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_addr, kind, name) = (f.next()?, f.next()?, f.next()?);
            (kind == "T").then_some(name)
        })
        .collect();
    for n in &names {
        assert!(exported.contains(&n.as_str()), "{n} is not exported");
    }
}

#[test]
fn pointer_constants_match_mpi_h() {
    let src = r#"
#include <stdio.h>
#include <mpi.h>
int main(void) {
    printf("%ld %ld %ld %ld\n", (long)MPI_STATUS_IGNORE, (long)MPI_STATUSES_IGNORE,
           (long)MPI_IN_PLACE, (long)MPI_BOTTOM);
    return 0;
}
"#;
    let (out, err, code) = build_and_run("abi_pointers", src);
    assert_eq!(code, Some(0), "stderr: {err}");
    let ours = [
        vaced::abi::MPI_STATUS_IGNORE as usize as i64,
        vaced::abi::MPI_STATUSES_IGNORE as usize as i64,
        vaced::abi::MPI_IN_PLACE as usize as i64,
        vaced::abi::MPI_BOTTOM as usize as i64,
    ];
    assert_eq!(
        out.trim(),
        ours.map(|v| v.to_string()).join(" "),
        "C: {out}"
    );
    assert_eq!(out.trim(), "1 1 -1 0");
}

#[test]
fn calls_that_work_before_init() {
    let src = r#"
#include <stdio.h>
#include <string.h>
#include <mpi.h>
int main(void) {
    int flag = -1, v = 0, sv = 0, len = 0, cls = -1, rc;
    char s[MPI_MAX_ERROR_STRING];
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Initialized(&flag); printf("initialized %d\n", flag);
    MPI_Finalized(&flag); printf("finalized %d\n", flag);
    MPI_Get_version(&v, &sv); printf("version %d.%d\n", v, sv);
    MPI_Get_library_version(lib, &len); printf("library %s (%d %d)\n", lib, len, (int)strlen(lib));
    MPI_Error_string(MPI_ERR_RANK, s, &len); printf("string %s (%d)\n", s, len);
    MPI_Error_string(MPI_ERR_TRUNCATE, s, &len); printf("string %s (%d)\n", s, len);
    rc = MPI_Error_string(12345, s, &len); printf("bad string rc %d\n", rc);
    MPI_Error_class(MPI_ERR_TAG, &cls); printf("class %d\n", cls);
    rc = MPI_Error_class(-4, &cls); printf("bad class rc %d\n", rc);
    printf("wtick %g\n", MPI_Wtick());
    double t0 = MPI_Wtime(), t1 = MPI_Wtime();
    printf("wtime ok %d\n", t0 > 0.0 && t1 >= t0);
    printf("pcontrol %d %d\n", MPI_Pcontrol(1), PMPI_Pcontrol(0, "extra", 3));
    fflush(stdout);
    MPI_Comm_rank(MPI_COMM_WORLD, &v);
    printf("not reached\n");
    return 0;
}
"#;
    let (out, err, code) = build_and_run("abi_preinit", src);
    assert_eq!(
        out,
        "initialized 0\n\
         finalized 0\n\
         version 3.1\n\
         library vaced 0.1.0 (VACED simulator) (29 29)\n\
         string Invalid rank (12)\n\
         string Message truncated (17)\n\
         bad string rc 12\n\
         class 4\n\
         bad class rc 12\n\
         wtick 1e-09\n\
         wtime ok 1\n\
         pcontrol 0 0\n"
    );
    // an MPI call before MPI_Init ends the process, naming the call
    assert_eq!(
        err,
        "vaced: MPI_Comm_rank: called before MPI_Init [MPI_ERR_OTHER]\n"
    );
    assert_eq!(code, Some(1));
}
