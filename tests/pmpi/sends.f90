! sends.f90: the Fortran half of tests/e2e/pmpi_truth.sh: rank 0 sends rank 1 ten integers
! with tag 7, then every rank joins an allreduce of one integer. Built with "use mpi".
program sends
use mpi
integer :: ierr, rank, buf(10), st(MPI_STATUS_SIZE), s
buf = 0
call MPI_Init(ierr)
call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
if (rank == 0) then
  call MPI_Send(buf, 10, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
else if (rank == 1) then
  call MPI_Recv(buf, 10, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st, ierr)
end if
call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
call MPI_Finalize(ierr)
end program
