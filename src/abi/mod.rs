//! The exported C ABI: `MPI_*` / `PMPI_*` entry points. Argument checking,
//! handle translation and error classes; no logic beyond that.
