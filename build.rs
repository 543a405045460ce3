//! Build script: bindgen over include/mpi.h (the single source of truth for the
//! ABI) and the C shims that stable Rust cannot express (C-variadic functions).
use std::env;
use std::path::PathBuf;

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

    cc::Build::new()
        .file("src/abi/shims.c")
        .include(manifest.join("include"))
        .warnings(true)
        .compile("vaced_shims");
}
