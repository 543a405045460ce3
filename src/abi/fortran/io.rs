//! Fortran bindings of MPI-IO. Offsets are INTEGER(KIND=MPI_OFFSET_KIND);
//! MPI_REGISTER_DATAREP is written by hand (its EXTRA_STATE is an
//! INTEGER(KIND=MPI_ADDRESS_KIND) where C takes a pointer).
use super::kinds::{put_ierror, Arg, StrIn};
use crate::sys::{self, MPI_Aint, MPI_Fint};
use std::os::raw::{c_char, c_void};

/// `MPI_REGISTER_DATAREP(DATAREP, READ_CONVERSION_FN, WRITE_CONVERSION_FN,
/// DTYPE_FILE_EXTENT_FN, EXTRA_STATE, IERROR)`.
///
/// # Safety
/// The arguments gfortran passes: the procedures' addresses, the others by
/// reference, then the length of DATAREP.
#[no_mangle]
pub unsafe extern "C" fn mpi_register_datarep_(
    datarep: *const c_char,
    read_conversion_fn: sys::MPI_Datarep_conversion_function,
    write_conversion_fn: sys::MPI_Datarep_conversion_function,
    dtype_file_extent_fn: sys::MPI_Datarep_extent_function,
    extra_state: *const MPI_Aint,
    ierror: *mut MPI_Fint,
    datarep_len: usize,
) {
    // SAFETY: gfortran passes datarep_len characters at datarep.
    let mut name = unsafe { StrIn::new(datarep, datarep_len) };
    // SAFETY: the converted arguments, as the C prototype takes them; the
    // extra state is passed as the address of the Fortran variable.
    let rc = unsafe {
        sys::PMPI_Register_datarep(
            name.c(),
            read_conversion_fn,
            write_conversion_fn,
            dtype_file_extent_fn,
            extra_state as *mut c_void,
        )
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_register_datarep_(datarep: *const c_char, read_conversion_fn: sys::MPI_Datarep_conversion_function, write_conversion_fn: sys::MPI_Datarep_conversion_function, dtype_file_extent_fn: sys::MPI_Datarep_extent_function, extra_state: *const MPI_Aint, ierror: *mut MPI_Fint, datarep_len: usize));

fortran! {
    mpi_file_open_ = PMPI_File_open(comm: Int, filename: StrIn[filename_len], amode: Int, info: Int, fh: IntOut);
    mpi_file_close_ = PMPI_File_close(fh: IntOut);
    mpi_file_delete_ = PMPI_File_delete(filename: StrIn[filename_len], info: Int);
    mpi_file_set_size_ = PMPI_File_set_size(fh: Int, size: Offset);
    mpi_file_preallocate_ = PMPI_File_preallocate(fh: Int, size: Offset);
    mpi_file_get_size_ = PMPI_File_get_size(fh: Int, size: OffsetOut);
    mpi_file_get_group_ = PMPI_File_get_group(fh: Int, group: IntOut);
    mpi_file_get_amode_ = PMPI_File_get_amode(fh: Int, amode: IntOut);
    mpi_file_set_info_ = PMPI_File_set_info(fh: Int, info: Int);
    mpi_file_get_info_ = PMPI_File_get_info(fh: Int, info_used: IntOut);
    mpi_file_set_view_ = PMPI_File_set_view(fh: Int, disp: Offset, etype: Int, filetype: Int, datarep: StrIn[datarep_len], info: Int);
    mpi_file_get_view_ = PMPI_File_get_view(fh: Int, disp: OffsetOut, etype: IntOut, filetype: IntOut, datarep: StrOut[datarep_len]);
    mpi_file_read_at_ = PMPI_File_read_at(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_read_at_all_ = PMPI_File_read_at_all(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_at_ = PMPI_File_write_at(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_at_all_ = PMPI_File_write_at_all(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_iread_at_ = PMPI_File_iread_at(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iwrite_at_ = PMPI_File_iwrite_at(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iread_at_all_ = PMPI_File_iread_at_all(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iwrite_at_all_ = PMPI_File_iwrite_at_all(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_read_ = PMPI_File_read(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_read_all_ = PMPI_File_read_all(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_ = PMPI_File_write(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_all_ = PMPI_File_write_all(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_iread_ = PMPI_File_iread(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iwrite_ = PMPI_File_iwrite(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iread_all_ = PMPI_File_iread_all(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iwrite_all_ = PMPI_File_iwrite_all(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_seek_ = PMPI_File_seek(fh: Int, offset: Offset, whence: Int);
    mpi_file_get_position_ = PMPI_File_get_position(fh: Int, offset: OffsetOut);
    mpi_file_get_byte_offset_ = PMPI_File_get_byte_offset(fh: Int, offset: Offset, disp: OffsetOut);
    mpi_file_read_shared_ = PMPI_File_read_shared(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_shared_ = PMPI_File_write_shared(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_iread_shared_ = PMPI_File_iread_shared(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_iwrite_shared_ = PMPI_File_iwrite_shared(fh: Int, buf: Buf, count: Int, datatype: Int, request: IntOut);
    mpi_file_read_ordered_ = PMPI_File_read_ordered(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_write_ordered_ = PMPI_File_write_ordered(fh: Int, buf: Buf, count: Int, datatype: Int, status: Status);
    mpi_file_seek_shared_ = PMPI_File_seek_shared(fh: Int, offset: Offset, whence: Int);
    mpi_file_get_position_shared_ = PMPI_File_get_position_shared(fh: Int, offset: OffsetOut);
    mpi_file_read_at_all_begin_ = PMPI_File_read_at_all_begin(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int);
    mpi_file_read_at_all_end_ = PMPI_File_read_at_all_end(fh: Int, buf: Buf, status: Status);
    mpi_file_write_at_all_begin_ = PMPI_File_write_at_all_begin(fh: Int, offset: Offset, buf: Buf, count: Int, datatype: Int);
    mpi_file_write_at_all_end_ = PMPI_File_write_at_all_end(fh: Int, buf: Buf, status: Status);
    mpi_file_read_all_begin_ = PMPI_File_read_all_begin(fh: Int, buf: Buf, count: Int, datatype: Int);
    mpi_file_read_all_end_ = PMPI_File_read_all_end(fh: Int, buf: Buf, status: Status);
    mpi_file_write_all_begin_ = PMPI_File_write_all_begin(fh: Int, buf: Buf, count: Int, datatype: Int);
    mpi_file_write_all_end_ = PMPI_File_write_all_end(fh: Int, buf: Buf, status: Status);
    mpi_file_read_ordered_begin_ = PMPI_File_read_ordered_begin(fh: Int, buf: Buf, count: Int, datatype: Int);
    mpi_file_read_ordered_end_ = PMPI_File_read_ordered_end(fh: Int, buf: Buf, status: Status);
    mpi_file_write_ordered_begin_ = PMPI_File_write_ordered_begin(fh: Int, buf: Buf, count: Int, datatype: Int);
    mpi_file_write_ordered_end_ = PMPI_File_write_ordered_end(fh: Int, buf: Buf, status: Status);
    mpi_file_get_type_extent_ = PMPI_File_get_type_extent(fh: Int, datatype: Int, extent: AintOut);
    mpi_file_set_atomicity_ = PMPI_File_set_atomicity(fh: Int, flag: Logical);
    mpi_file_get_atomicity_ = PMPI_File_get_atomicity(fh: Int, flag: Flag);
    mpi_file_sync_ = PMPI_File_sync(fh: Int);
    mpi_file_create_errhandler_ = PMPI_File_create_errhandler(file_errhandler_fn: FileErrhandlerFunction, errhandler: IntOut);
    mpi_file_set_errhandler_ = PMPI_File_set_errhandler(file: Int, errhandler: Int);
    mpi_file_get_errhandler_ = PMPI_File_get_errhandler(file: Int, errhandler: IntOut);
    mpi_file_call_errhandler_ = PMPI_File_call_errhandler(fh: Int, errorcode: Int);
}
