//! vaced's engine as a static library, for the patched MPICH
//! (`mpich-patch/build.sh` links it into MPICH's libmpi): the C API of
//! `include/vaced_engine.h`, which is `vaced::abi::engine_api` (its
//! documentation gives the timing rules). `build.sh` keeps only the
//! `vaced_eng_*` symbols global, so that vaced's own MPI functions, also in
//! the archive, never meet MPICH's.
pub use vaced::abi::engine_api::*;
