//! Fortran bindings of the point-to-point completion calls: persistent
//! requests (partitioned ones too), MPI_Isendrecv(_replace), MPI_Request_get_status, the status
//! setters, and generalized requests (MPI_GREQUEST_START is written by hand
//! below: its callbacks are Fortran procedures).
use super::kinds::put_ierror;
use crate::mpi::grequest::Hooks;
use crate::sys::{MPI_Aint, MPI_Fint, MPI_Status};
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

fortran! {
    mpi_send_init_ = PMPI_Send_init(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_bsend_init_ = PMPI_Bsend_init(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_ssend_init_ = PMPI_Ssend_init(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_rsend_init_ = PMPI_Rsend_init(buf: Buf, count: Int, datatype: Int, dest: Int, tag: Int, comm: Int, request: IntOut);
    mpi_recv_init_ = PMPI_Recv_init(buf: Buf, count: Int, datatype: Int, source: Int, tag: Int, comm: Int, request: IntOut);
    mpi_start_ = PMPI_Start(request: IntOut);
    mpi_startall_ = PMPI_Startall(count: Int, array_of_requests: Ints);
    mpi_isendrecv_ = PMPI_Isendrecv(sendbuf: Buf, sendcount: Int, sendtype: Int, dest: Int, sendtag: Int, recvbuf: Buf, recvcount: Int, recvtype: Int, source: Int, recvtag: Int, comm: Int, request: IntOut);
    mpi_isendrecv_replace_ = PMPI_Isendrecv_replace(buf: Buf, count: Int, datatype: Int, dest: Int, sendtag: Int, source: Int, recvtag: Int, comm: Int, request: IntOut);
    mpi_request_get_status_ = PMPI_Request_get_status(request: Int, flag: Flag, status: Status);
    mpi_status_set_elements_ = PMPI_Status_set_elements(status: Status, datatype: Int, count: Int);
    mpi_status_set_elements_x_ = PMPI_Status_set_elements_x(status: Status, datatype: Int, count: Count);
    mpi_status_set_cancelled_ = PMPI_Status_set_cancelled(status: Status, flag: Logical);
    mpi_grequest_complete_ = PMPI_Grequest_complete(request: Int);
    mpi_mprobe_ = PMPI_Mprobe(source: Int, tag: Int, comm: Int, message: IntOut, status: Status);
    mpi_improbe_ = PMPI_Improbe(source: Int, tag: Int, comm: Int, flag: Flag, message: IntOut, status: Status);
    mpi_mrecv_ = PMPI_Mrecv(buf: Buf, count: Int, datatype: Int, message: IntOut, status: Status);
    mpi_imrecv_ = PMPI_Imrecv(buf: Buf, count: Int, datatype: Int, message: IntOut, request: IntOut);
    mpi_psend_init_ = PMPI_Psend_init(buf: Buf, partitions: Int, count: Count, datatype: Int, dest: Int, tag: Int, comm: Int, info: Int, request: IntOut);
    mpi_precv_init_ = PMPI_Precv_init(buf: Buf, partitions: Int, count: Count, datatype: Int, source: Int, tag: Int, comm: Int, info: Int, request: IntOut);
    mpi_pready_ = PMPI_Pready(partition: Int, request: Int);
    mpi_pready_range_ = PMPI_Pready_range(partition_low: Int, partition_high: Int, request: Int);
    mpi_pready_list_ = PMPI_Pready_list(length: Int, array_of_partitions: Ints, request: Int);
    mpi_parrived_ = PMPI_Parrived(request: Int, partition: Int, flag: Flag);
}

/// `SUBROUTINE QUERY_FN(EXTRA_STATE, STATUS, IERROR)`
type FortranQuery =
    unsafe extern "C" fn(extra_state: *mut MPI_Aint, status: *mut MPI_Fint, ierror: *mut MPI_Fint);
/// `SUBROUTINE FREE_FN(EXTRA_STATE, IERROR)`
type FortranFree = unsafe extern "C" fn(extra_state: *mut MPI_Aint, ierror: *mut MPI_Fint);
/// `SUBROUTINE CANCEL_FN(EXTRA_STATE, COMPLETE, IERROR)`
type FortranCancel = unsafe extern "C" fn(
    extra_state: *mut MPI_Aint,
    complete: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
);

/// The Fortran callbacks of a generalized request and the address of the
/// program's EXTRA_STATE variable: as with MPICH, the callbacks get that
/// very variable (by reference), so what they store in it the program
/// sees; it must live as long as the request (as in MPICH).
struct FortranHooks {
    query: FortranQuery,
    free: FortranFree,
    cancel: FortranCancel,
    extra: usize,
}

impl FortranHooks {
    fn extra(&self) -> *mut MPI_Aint {
        self.extra as *mut MPI_Aint
    }
}

impl Hooks for FortranHooks {
    fn query(&self, st: &mut MPI_Status) -> c_int {
        let mut ierr = 0;
        // SAFETY: the program's QUERY_FN with Fortran conventions: every
        // argument by reference (EXTRA_STATE: the program's variable, alive
        // while the request is); a Fortran status is the C struct's ints.
        unsafe {
            (self.query)(
                self.extra(),
                st as *mut MPI_Status as *mut MPI_Fint,
                &mut ierr,
            )
        };
        ierr
    }
    fn free(&self) -> c_int {
        let mut ierr = 0;
        // SAFETY: the program's FREE_FN, arguments by reference.
        unsafe { (self.free)(self.extra(), &mut ierr) };
        ierr
    }
    fn cancel(&self, complete: bool) -> c_int {
        let (mut c, mut ierr) = (complete as MPI_Fint, 0);
        // SAFETY: the program's CANCEL_FN, arguments by reference (LOGICAL
        // .true. is 1 for gfortran).
        unsafe { (self.cancel)(self.extra(), &mut c, &mut ierr) };
        ierr
    }
}

/// `MPI_GREQUEST_START(QUERY_FN, FREE_FN, CANCEL_FN, EXTRA_STATE, REQUEST,
/// IERROR)`
#[no_mangle]
pub unsafe extern "C" fn mpi_grequest_start_(
    query_fn: *const c_void,
    free_fn: *const c_void,
    cancel_fn: *const c_void,
    extra_state: *const MPI_Aint,
    request: *mut MPI_Fint,
    ierror: *mut MPI_Fint,
) {
    // SAFETY: gfortran passes the procedures' addresses (MPI's contract
    // gives them the interfaces above) and the rest by reference.
    let rc = unsafe {
        let hooks = Arc::new(FortranHooks {
            query: std::mem::transmute::<*const c_void, FortranQuery>(query_fn),
            free: std::mem::transmute::<*const c_void, FortranFree>(free_fn),
            cancel: std::mem::transmute::<*const c_void, FortranCancel>(cancel_fn),
            extra: extra_state as usize,
        });
        crate::abi::grequest::start("MPI_Grequest_start", hooks, request)
    };
    // SAFETY: the IERROR argument gfortran passes.
    unsafe { put_ierror(ierror, rc) };
}
pmpi_twin!(mpi_grequest_start_(query_fn: *const c_void, free_fn: *const c_void, cancel_fn: *const c_void, extra_state: *const MPI_Aint, request: *mut MPI_Fint, ierror: *mut MPI_Fint));
