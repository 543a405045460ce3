//! Build script: bindgen over include/mpi.h (the single source of truth for the
//! ABI), the C shims that stable Rust cannot express (C-variadic functions),
//! and the Fortran side generated from mpi.h: include/mpif.h and the `mpi`
//! and `mpi_f08` modules (include/mpi.f90, include/mpi_f08.f90, compiled
//! into target/<profile>/fmod/).
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/abi/fortran/generator.rs"]
mod fortran_generator;

/// Every integer constant of mpi.h is a C `int` (handles included).
#[derive(Debug)]
struct IntConstants;
impl bindgen::callbacks::ParseCallbacks for IntConstants {
    fn int_macro(&self, _name: &str, value: i64) -> Option<bindgen::callbacks::IntKind> {
        (i32::MIN as i64..=i32::MAX as i64)
            .contains(&value)
            .then_some(bindgen::callbacks::IntKind::Int)
    }
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let header = manifest.join("include/mpi.h");
    println!("cargo:rerun-if-changed={}", header.display());
    println!("cargo:rerun-if-changed=src/abi/shims.c");
    // Calls inside libvaced.so to its own functions bind to its own
    // definitions: a program (or profiling library) that defines MPI_SEND
    // itself and calls PMPI_SEND reaches ours, not itself again (the
    // Fortran PMPI_ entry points forward to the MPI_ ones).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic-functions");
    // A host process of the many-ranks mode interposes `exit`,
    // `pthread_create` and `fork` for the
    // program copies it loads (see src/ranks/entry.rs).
    println!("cargo:rustc-link-arg-bin=vaced=-Wl,--export-dynamic-symbol=exit");
    println!("cargo:rustc-link-arg-bin=vaced=-Wl,--export-dynamic-symbol=pthread_create");
    println!("cargo:rustc-link-arg-bin=vaced=-Wl,--export-dynamic-symbol=fork");

    let bindings = bindgen::Builder::default()
        .header(header.to_str().unwrap())
        .allowlist_function("P?MPIX?_.*")
        .allowlist_type("MPI_.*")
        .allowlist_var("MPIX?_.*")
        .clang_macro_fallback()
        .parse_callbacks(Box::new(IntConstants))
        .layout_tests(false)
        .generate_comments(false)
        .generate()
        .expect("bindgen failed on include/mpi.h (is libclang-dev installed?)");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    bindings
        .write_to_file(out.join("mpi_sys.rs"))
        .expect("cannot write mpi_sys.rs");

    let sys_rs = std::fs::read_to_string(out.join("mpi_sys.rs")).unwrap();
    fortran(&manifest, &out, &sys_rs);

    cc::Build::new()
        .file("src/abi/shims.c")
        .include(manifest.join("include"))
        .warnings(true)
        .compile("vaced_shims");
}

/// Writes `text` to `path` unless it already holds exactly that.
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        if let Err(e) = std::fs::write(path, text) {
            println!("cargo:warning=cannot update {}: {e}", path.display());
        }
    }
}

/// Generates include/mpif.h, include/mpi.f90 and include/mpi_f08.f90 from
/// mpi.h (values from bindgen) and the binding tables, then compiles the
/// `mpi` and `mpi_f08` modules with the Fortran compiler (VACED_FC, else
/// gfortran) into `target/<profile>/fmod`,
/// next to libvaced.so, where the mpif77 / mpif90 wrappers look for it.
fn fortran(manifest: &Path, out: &Path, sys_rs: &str) {
    let dir = manifest.join("src/abi/fortran");
    println!("cargo:rerun-if-changed={}", dir.display());
    println!("cargo:rerun-if-changed=include/mpif.h");
    println!("cargo:rerun-if-changed=include/mpi.f90");
    println!("cargo:rerun-if-changed=include/mpi_f08.f90");
    println!("cargo:rerun-if-env-changed=VACED_FC");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("src/abi/fortran")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    let sources: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    let mpi_h = std::fs::read_to_string(manifest.join("include/mpi.h")).unwrap();
    let g = fortran_generator::generate(&mpi_h, sys_rs, &sources)
        .unwrap_or_else(|e| panic!("generating the Fortran bindings: {e}"));
    for name in &g.unmapped {
        println!("cargo:warning=mpi.h pointer constant {name} has no Fortran counterpart (add it to SPECIAL in src/abi/fortran/generator.rs)");
    }
    for name in &g.unbound {
        println!("cargo:warning={name} has no Fortran binding (add a line to a fortran! table in src/abi/fortran/)");
    }
    write_if_changed(&manifest.join("include/mpif.h"), &g.mpif_h);
    let module = manifest.join("include/mpi.f90");
    write_if_changed(&module, &g.mpi_f90);
    let module_f08 = manifest.join("include/mpi_f08.f90");
    write_if_changed(&module_f08, &g.mpi_f08_f90);
    write_if_changed(&out.join("fortran_sys_consts.rs"), &g.sys_table);

    // OUT_DIR is target/<profile>/build/vaced-<hash>/out.
    let fmod = out.ancestors().nth(3).unwrap().join("fmod");
    let fc = env::var("VACED_FC").unwrap_or_else(|_| "gfortran".to_string());
    if Command::new(&fc).arg("--version").output().is_err() {
        println!("cargo:warning=no Fortran compiler `{fc}`: the `mpi` module is not built (Fortran programs need gfortran)");
        return;
    }
    std::fs::create_dir_all(&fmod).unwrap();
    for (source, object) in [(&module, "mpi_module.o"), (&module_f08, "mpi_f08_module.o")] {
        let o = Command::new(&fc)
            .arg("-c")
            .arg(source)
            .arg("-J")
            .arg(&fmod)
            .arg("-o")
            .arg(out.join(object))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{fc} failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
