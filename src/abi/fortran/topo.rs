//! Fortran bindings of the Cartesian topology calls (coordinates count
//! from 0 in Fortran too; LOGICAL arrays are gfortran's 0 / 1 ints).

fortran! {
    mpi_dims_create_ = PMPI_Dims_create(nnodes: Int, ndims: Int, dims: Ints);
    mpi_cart_create_ = PMPI_Cart_create(comm_old: Int, ndims: Int, dims: Ints, periods: Logicals, reorder: Logical, comm_cart: IntOut);
    mpi_cart_get_ = PMPI_Cart_get(comm: Int, maxdims: Int, dims: Ints, periods: Logicals, coords: Ints);
    mpi_cart_coords_ = PMPI_Cart_coords(comm: Int, rank: Int, maxdims: Int, coords: Ints);
    mpi_cart_rank_ = PMPI_Cart_rank(comm: Int, coords: Ints, rank: IntOut);
    mpi_cart_shift_ = PMPI_Cart_shift(comm: Int, direction: Int, disp: Int, rank_source: IntOut, rank_dest: IntOut);
    mpi_cart_sub_ = PMPI_Cart_sub(comm: Int, remain_dims: Logicals, newcomm: IntOut);
    mpi_cartdim_get_ = PMPI_Cartdim_get(comm: Int, ndims: IntOut);
    mpi_topo_test_ = PMPI_Topo_test(comm: Int, status: IntOut);
}
