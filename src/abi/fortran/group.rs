//! Fortran bindings of the group calls (ranks count from 0 in Fortran too).

fortran! {
    mpi_group_size_ = PMPI_Group_size(group: Int, size: IntOut);
    mpi_group_rank_ = PMPI_Group_rank(group: Int, rank: IntOut);
    mpi_group_incl_ = PMPI_Group_incl(group: Int, n: Int, ranks: Ints, newgroup: IntOut);
    mpi_group_excl_ = PMPI_Group_excl(group: Int, n: Int, ranks: Ints, newgroup: IntOut);
    mpi_group_range_incl_ = PMPI_Group_range_incl(group: Int, n: Int, ranges: Ranges, newgroup: IntOut);
    mpi_group_range_excl_ = PMPI_Group_range_excl(group: Int, n: Int, ranges: Ranges, newgroup: IntOut);
    mpi_group_union_ = PMPI_Group_union(group1: Int, group2: Int, newgroup: IntOut);
    mpi_group_intersection_ = PMPI_Group_intersection(group1: Int, group2: Int, newgroup: IntOut);
    mpi_group_difference_ = PMPI_Group_difference(group1: Int, group2: Int, newgroup: IntOut);
    mpi_group_translate_ranks_ = PMPI_Group_translate_ranks(group1: Int, n: Int, ranks1: Ints, group2: Int, ranks2: Ints);
    mpi_group_compare_ = PMPI_Group_compare(group1: Int, group2: Int, result: IntOut);
    mpi_group_free_ = PMPI_Group_free(group: IntOut);
}
