//! Fortran bindings of the derived datatype calls with the MPI-2 argument
//! types (INTEGER(KIND=MPI_ADDRESS_KIND) displacements), packing, element
//! counts and addresses. The MPI-1 names whose Fortran INTEGERs stand for
//! C's MPI_Aint are written by hand (`special`).

fortran! {
    mpi_type_contiguous_ = PMPI_Type_contiguous(count: Int, oldtype: Int, newtype: IntOut);
    mpi_type_vector_ = PMPI_Type_vector(count: Int, blocklength: Int, stride: Int, oldtype: Int, newtype: IntOut);
    mpi_type_create_hvector_ = PMPI_Type_create_hvector(count: Int, blocklength: Int, stride: Aint, oldtype: Int, newtype: IntOut);
    mpi_type_indexed_ = PMPI_Type_indexed(count: Int, array_of_blocklengths: Ints, array_of_displacements: Ints, oldtype: Int, newtype: IntOut);
    mpi_type_create_hindexed_ = PMPI_Type_create_hindexed(count: Int, array_of_blocklengths: Ints, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_indexed_block_ = PMPI_Type_create_indexed_block(count: Int, blocklength: Int, array_of_displacements: Ints, oldtype: Int, newtype: IntOut);
    mpi_type_create_hindexed_block_ = PMPI_Type_create_hindexed_block(count: Int, blocklength: Int, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_struct_ = PMPI_Type_create_struct(count: Int, array_of_blocklengths: Ints, array_of_displacements: Aints, array_of_types: Ints, newtype: IntOut);
    mpi_type_create_subarray_ = PMPI_Type_create_subarray(ndims: Int, array_of_sizes: Ints, array_of_subsizes: Ints, array_of_starts: Ints, order: Int, oldtype: Int, newtype: IntOut);
    mpi_type_create_resized_ = PMPI_Type_create_resized(oldtype: Int, lb: Aint, extent: Aint, newtype: IntOut);
    mpi_type_dup_ = PMPI_Type_dup(oldtype: Int, newtype: IntOut);
    mpi_type_commit_ = PMPI_Type_commit(datatype: IntOut);
    mpi_type_free_ = PMPI_Type_free(datatype: IntOut);
    mpi_type_size_x_ = PMPI_Type_size_x(datatype: Int, size: CountOut);
    mpi_type_get_extent_ = PMPI_Type_get_extent(datatype: Int, lb: AintOut, extent: AintOut);
    mpi_type_get_extent_x_ = PMPI_Type_get_extent_x(datatype: Int, lb: CountOut, extent: CountOut);
    mpi_type_get_true_extent_ = PMPI_Type_get_true_extent(datatype: Int, true_lb: AintOut, true_extent: AintOut);
    mpi_type_get_true_extent_x_ = PMPI_Type_get_true_extent_x(datatype: Int, true_lb: CountOut, true_extent: CountOut);
    mpi_type_get_envelope_ = PMPI_Type_get_envelope(datatype: Int, num_integers: IntOut, num_addresses: IntOut, num_datatypes: IntOut, combiner: IntOut);
    mpi_type_get_contents_ = PMPI_Type_get_contents(datatype: Int, max_integers: Int, max_addresses: Int, max_datatypes: Int, array_of_integers: Ints, array_of_addresses: Aints, array_of_datatypes: Ints);
    mpi_type_contiguous_c_ = PMPI_Type_contiguous_c(count: Count, oldtype: Int, newtype: IntOut);
    mpi_type_vector_c_ = PMPI_Type_vector_c(count: Count, blocklength: Count, stride: Count, oldtype: Int, newtype: IntOut);
    mpi_type_create_hvector_c_ = PMPI_Type_create_hvector_c(count: Count, blocklength: Count, stride: Count, oldtype: Int, newtype: IntOut);
    mpi_type_indexed_c_ = PMPI_Type_indexed_c(count: Count, array_of_blocklengths: Aints, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_hindexed_c_ = PMPI_Type_create_hindexed_c(count: Count, array_of_blocklengths: Aints, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_indexed_block_c_ = PMPI_Type_create_indexed_block_c(count: Count, blocklength: Count, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_hindexed_block_c_ = PMPI_Type_create_hindexed_block_c(count: Count, blocklength: Count, array_of_displacements: Aints, oldtype: Int, newtype: IntOut);
    mpi_type_create_struct_c_ = PMPI_Type_create_struct_c(count: Count, array_of_blocklengths: Aints, array_of_displacements: Aints, array_of_types: Ints, newtype: IntOut);
    mpi_type_create_subarray_c_ = PMPI_Type_create_subarray_c(ndims: Int, array_of_sizes: Aints, array_of_subsizes: Aints, array_of_starts: Aints, order: Int, oldtype: Int, newtype: IntOut);
    mpi_type_create_resized_c_ = PMPI_Type_create_resized_c(oldtype: Int, lb: Count, extent: Count, newtype: IntOut);
    mpi_type_get_envelope_c_ = PMPI_Type_get_envelope_c(datatype: Int, num_integers: CountOut, num_addresses: CountOut, num_large_counts: CountOut, num_datatypes: CountOut, combiner: IntOut);
    mpi_type_get_contents_c_ = PMPI_Type_get_contents_c(datatype: Int, max_integers: Count, max_addresses: Count, max_large_counts: Count, max_datatypes: Count, array_of_integers: Ints, array_of_addresses: Aints, array_of_large_counts: Aints, array_of_datatypes: Ints);
    mpi_pack_ = PMPI_Pack(inbuf: Buf, incount: Int, datatype: Int, outbuf: Buf, outsize: Int, position: IntOut, comm: Int);
    mpi_unpack_ = PMPI_Unpack(inbuf: Buf, insize: Int, position: IntOut, outbuf: Buf, outcount: Int, datatype: Int, comm: Int);
    mpi_pack_size_ = PMPI_Pack_size(incount: Int, datatype: Int, comm: Int, size: IntOut);
    mpi_get_elements_ = PMPI_Get_elements(status: Status, datatype: Int, count: IntOut);
    mpi_get_elements_x_ = PMPI_Get_elements_x(status: Status, datatype: Int, count: CountOut);
    mpi_get_address_ = PMPI_Get_address(location: Buf, address: AintOut);
}
