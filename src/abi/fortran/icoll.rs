//! Fortran bindings of the nonblocking collectives.

fortran! {
    mpi_ibarrier_ = PMPI_Ibarrier(comm: Int, request: IntOut);
    mpi_ibcast_ = PMPI_Ibcast(buffer: Buf, count: Int, datatype: Int, root: Int, comm: Int, request: IntOut);
}
