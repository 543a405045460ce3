//! The exported C ABI as a C program sees it: every function declared in
//! include/mpi.h links against target/<profile>/libvaced.so (MPI_ and PMPI_),
//! the pointer constants agree with mpi.h, and the calls that work before
//! MPI_Init give the documented results.
mod common;
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>/, where cargo put libvaced.so next to this test's deps/.
fn lib_dir() -> PathBuf {
    common::ensure_fresh_library();
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
    assert!(
        dir.join("libvaced.so").exists(),
        "libvaced.so not found in {}",
        dir.display()
    );
    dir
}

/// Names of the functions declared in mpi.h: a line `TYPE NAME(...` at the
/// start of a line, whatever the return type (`int`, `double`, `MPI_Aint`,
/// `MPI_Fint`, ...), for names starting with MPI or PMPI.
fn declared_functions() -> Vec<String> {
    let h = std::fs::read_to_string(manifest().join("include/mpi.h")).unwrap();
    h.lines()
        .filter(|l| !l.starts_with(|c: char| c.is_whitespace() || c == '#' || c == '/'))
        .filter_map(|l| {
            let head = l.split('(').next()?;
            let mut words = head.split_whitespace();
            let (ret, name) = (words.next()?, words.next()?);
            let name = name.trim_start_matches('*');
            let is_type = !ret.contains('_') || ret.starts_with("MPI_");
            (words.next().is_none()
                && is_type
                && l.contains('(')
                && ret != "typedef"
                && ret != "extern"
                && (name.starts_with("MPI") || name.starts_with("PMPI")))
            .then(|| name.to_string())
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
    // Every call is declared as MPI_ and PMPI_ (checked below), and the list
    // is not empty: a parser that found nothing would prove nothing.
    assert!(
        names.len() >= 2 && names.len().is_multiple_of(2),
        "{names:?}"
    );
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
    assert_eq!(out.trim(), names.len().to_string());

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
        "vaced: MPI_Comm_rank: called before MPI_Init or MPI_Session_init [MPI_ERR_OTHER]\n"
    );
    assert_eq!(code, Some(1));
}

/// The MPI semantics of the ABI in a singleton job (a program started
/// without mpirun is one rank): argument errors under MPI_ERRORS_RETURN,
/// null processes, messages to self with contiguous and padded pair types,
/// truncation, the Wait/Test families, probe, cancel, buffered sends.
#[test]
fn singleton_semantics() {
    let src = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#define CHECK(x) do { int rc_ = (x); if (rc_ != MPI_SUCCESS) printf("FAIL %s = %d\n", #x, rc_); } while (0)
int main(int argc, char **argv) {
    int provided, flag, rank, size, count, n, rc, idx, ix[2], x = 5;
    MPI_Status st, sts[2];
    MPI_Request req[2];
    MPI_Errhandler eh;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Query_thread(&flag);
    printf("provided %d query %d\n", provided, flag);
    MPI_Is_thread_main(&flag); printf("main %d\n", flag);
    MPI_Initialized(&flag); printf("initialized %d\n", flag);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("world %d/%d\n", rank, size);
    MPI_Comm_rank(MPI_COMM_SELF, &rank); MPI_Comm_size(MPI_COMM_SELF, &size);
    printf("self %d/%d\n", rank, size);
    char name[MPI_MAX_PROCESSOR_NAME];
    CHECK(MPI_Get_processor_name(name, &n));
    printf("name %d %s\n", (int)strlen(name) == n, n > 6 ? name + n - 6 : "?");

    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    printf("fatal by default %d\n", eh == MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    printf("rank %d\n", MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD));
    printf("count %d\n", MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    printf("type %d\n", MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
    printf("tag %d\n", MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD));
    printf("buffer %d\n", MPI_Send(NULL, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    printf("comm %d\n", MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    printf("source %d\n", MPI_Irecv(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, &req[0]));
    printf("arg %d\n", MPI_Wait(NULL, &st));
    req[0] = 12345;
    printf("request %d\n", MPI_Wait(&req[0], &st));
    printf("bsend %d\n", MPI_Bsend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    printf("compute %d\n", MPIX_Vaced_compute(-1.0));
    CHECK(MPIX_Vaced_compute(0.5));

    CHECK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    printf("procnull %d %d %d x %d\n", st.MPI_SOURCE == MPI_PROC_NULL, st.MPI_TAG == MPI_ANY_TAG, count, x);

    int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
    CHECK(MPI_Isend(a, 3, MPI_INT, 0, 7, MPI_COMM_WORLD, &req[0]));
    CHECK(MPI_Recv(b, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    MPI_Get_count(&st, MPI_INT, &count);
    printf("ints %d %d %d from %d tag %d count %d null %d\n", b[0], b[1], b[2], st.MPI_SOURCE,
           st.MPI_TAG, count, req[0] == MPI_REQUEST_NULL);

    struct { short s; int i; } si[2] = {{1, 100}, {2, 200}}, si2[2];
    memset(si2, 0, sizeof si2);
    CHECK(MPI_Send(si, 2, MPI_SHORT_INT, 0, 1, MPI_COMM_WORLD));
    CHECK(MPI_Recv(si2, 2, MPI_SHORT_INT, 0, 1, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_SHORT_INT, &count);
    MPI_Get_count(&st, MPI_BYTE, &n);
    printf("short_int %d %d %d %d count %d bytes %d\n", si2[0].s, si2[0].i, si2[1].s, si2[1].i, count, n);
    struct { double d; int i; } di[2] = {{1.5, 7}, {2.5, 8}}, di2[2];
    memset(di2, 0, sizeof di2);
    CHECK(MPI_Irecv(di2, 2, MPI_DOUBLE_INT, 0, 2, MPI_COMM_WORLD, &req[0]));
    CHECK(MPI_Send(di, 2, MPI_DOUBLE_INT, 0, 2, MPI_COMM_WORLD));
    CHECK(MPI_Wait(&req[0], &st));
    MPI_Get_count(&st, MPI_DOUBLE_INT, &count);
    printf("double_int %g %d %g %d count %d\n", di2[0].d, di2[0].i, di2[1].d, di2[1].i, count);
    int s1, s2, s3, s4;
    MPI_Type_size(MPI_DOUBLE_INT, &s1); MPI_Type_size(MPI_SHORT_INT, &s2);
    MPI_Type_size(MPI_LONG_DOUBLE_INT, &s3); MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &s4);
    printf("sizes %d %d %d %d type %d\n", s1, s2, s3, s4, MPI_Type_size(42, &s1));

    int big[4] = {1, 2, 3, 4}, small[2] = {0, 0};
    CHECK(MPI_Send(big, 4, MPI_INT, 0, 3, MPI_COMM_WORLD));
    st.MPI_ERROR = -7; /* single-status calls leave MPI_ERROR alone (MPI 3.1 3.2.5) */
    rc = MPI_Recv(small, 2, MPI_INT, 0, 3, MPI_COMM_WORLD, &st);
    printf("truncate %d %d %d %d\n", rc, st.MPI_ERROR, small[0], small[1]);
    CHECK(MPI_Send(big, 4, MPI_INT, 0, 4, MPI_COMM_WORLD));
    CHECK(MPI_Irecv(small, 2, MPI_INT, 0, 4, MPI_COMM_WORLD, &req[0]));
    req[1] = MPI_REQUEST_NULL;
    rc = MPI_Waitall(2, req, sts);
    printf("waitall %d %d %d\n", rc, sts[0].MPI_ERROR, sts[1].MPI_ERROR);

    req[0] = req[1] = MPI_REQUEST_NULL;
    CHECK(MPI_Waitany(2, req, &idx, &st));
    printf("waitany %d\n", idx == MPI_UNDEFINED);
    CHECK(MPI_Waitsome(2, req, &n, ix, sts));
    printf("waitsome %d\n", n == MPI_UNDEFINED);
    CHECK(MPI_Testany(2, req, &idx, &flag, &st));
    printf("testany %d %d\n", flag, idx == MPI_UNDEFINED);
    CHECK(MPI_Testall(2, req, &flag, sts));
    printf("testall %d\n", flag);

    CHECK(MPI_Irecv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &req[0]));
    CHECK(MPI_Irecv(&b[0], 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &req[1]));
    CHECK(MPI_Waitany(2, req, &idx, &st));
    printf("waitany procnull %d\n", idx);
    CHECK(MPI_Test(&req[0], &flag, &st));
    printf("test pending %d\n", flag);
    int y = 42;
    CHECK(MPI_Send(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    CHECK(MPI_Waitsome(2, req, &n, ix, sts));
    printf("waitsome %d %d x %d\n", n, ix[0], x);

    CHECK(MPI_Send(a, 3, MPI_INT, 0, 6, MPI_COMM_WORLD));
    CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_SHORT, &count);
    printf("probe %d %d %d\n", st.MPI_SOURCE, st.MPI_TAG, count);
    /* after Probe the message has arrived (in virtual time too) */
    CHECK(MPI_Iprobe(0, 6, MPI_COMM_WORLD, &flag, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    printf("iprobe %d %d %d\n", flag, st.MPI_TAG, count);
    CHECK(MPI_Iprobe(0, 77, MPI_COMM_WORLD, &flag, &st));
    printf("iprobe none %d\n", flag);
    CHECK(MPI_Recv(b, 3, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

    CHECK(MPI_Irecv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &req[0]));
    CHECK(MPI_Cancel(&req[0]));
    CHECK(MPI_Wait(&req[0], &st));
    MPI_Test_cancelled(&st, &flag);
    printf("cancelled %d\n", flag);
    CHECK(MPI_Issend(a, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, &req[0]));
    /* the receive, posted before the cancel request arrives, takes it */
    rc = MPI_Cancel(&req[0]);
    CHECK(MPI_Recv(b, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Wait(&req[0], &st));
    MPI_Test_cancelled(&st, &flag);
    printf("cancel send %d cancelled %d\n", rc, flag);

    char *buf = malloc(12 + MPI_BSEND_OVERHEAD);
    void *got;
    CHECK(MPI_Buffer_attach(buf, 12 + MPI_BSEND_OVERHEAD));
    CHECK(MPI_Bsend(a, 3, MPI_INT, 0, 8, MPI_COMM_WORLD));
    printf("bsend too big %d\n", MPI_Bsend(big, 4, MPI_INT, 0, 8, MPI_COMM_WORLD));
    CHECK(MPI_Recv(b, 3, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(MPI_Buffer_detach(&got, &n));
    printf("detach %d %d\n", got == buf, n);
    free(buf);

    int r[2] = {9, 10};
    CHECK(MPI_Sendrecv_replace(r, 2, MPI_INT, 0, 9, 0, 9, MPI_COMM_WORLD, &st));
    printf("replace %d %d tag %d\n", r[0], r[1], st.MPI_TAG);
    struct { short s; int i; } sr[1] = {{3, 33}};
    CHECK(MPI_Sendrecv_replace(sr, 1, MPI_SHORT_INT, 0, 9, 0, 9, MPI_COMM_WORLD, &st));
    printf("replace pair %d %d\n", sr[0].s, sr[0].i);
    CHECK(MPI_Sendrecv(a, 3, MPI_INT, 0, 10, b, 3, MPI_INT, 0, 10, MPI_COMM_SELF, &st));
    printf("sendrecv %d %d %d from %d\n", b[0], b[1], b[2], st.MPI_SOURCE);

    CHECK(MPI_Isend(&y, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, &req[0]));
    CHECK(MPI_Request_free(&req[0]));
    CHECK(MPI_Recv(&x, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    printf("freed %d x %d\n", req[0] == MPI_REQUEST_NULL, x);

    CHECK(MPI_Finalize());
    MPI_Finalized(&flag);
    printf("finalized %d\n", flag);
    return 0;
}
"#;
    let (out, err, code) = build_and_run("abi_singleton", src);
    assert_eq!(code, Some(0), "stderr: {err}");
    let expect = "\
provided 3 query 3
main 1
initialized 1
world 0/1
self 0/1
name 1 -node0
fatal by default 1
rank 6
count 2
type 3
tag 4
buffer 1
comm 5
source 6
arg 12
request 19
bsend 1
compute 12
procnull 1 1 0 x 5
ints 1 2 3 from 0 tag 7 count 3 null 1
short_int 1 100 2 200 count 2 bytes 12
double_int 1.5 7 2.5 8 count 2
sizes 12 6 20 16 type 3
truncate 14 -7 1 2
waitall 17 14 0
waitany 1
waitsome 1
testany 1 1
testall 1
waitany procnull 1
test pending 0
waitsome 1 0 x 42
probe 0 6 6
iprobe 1 6 3
iprobe none 0
cancelled 1
cancel send 0 cancelled 0
bsend too big 1
detach 1 108
replace 9 10 tag 9
replace pair 3 33
sendrecv 1 2 3 from 0
freed 1 x 42
finalized 1
";
    assert_eq!(out, expect);
}

/// Under the default MPI_ERRORS_ARE_FATAL an invalid argument ends the job
/// with a message naming the rank, the call, the problem and the class.
#[test]
fn fatal_error_message() {
    let src = r#"
#include <mpi.h>
int main(int argc, char **argv) {
    int x = 1;
    MPI_Init(&argc, &argv);
    MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    return 0;
}
"#;
    let (out, err, code) = build_and_run("abi_fatal", src);
    assert_eq!(out, "");
    assert!(
        err.starts_with(
            "vaced: rank 0: MPI_Send: invalid destination rank 99 (communicator size 1) [MPI_ERR_RANK]\n"
        ),
        "stderr: {err}"
    );
    assert_ne!(code, Some(0));
}
