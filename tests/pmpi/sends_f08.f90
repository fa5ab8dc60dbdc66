! sends_f08.f90: sends.f90 through the mpi_f08 module (Open MPI routes it through ompi_*_f).
program sends_f08
use mpi_f08
integer :: rank, buf(10), s
buf = 0
call MPI_Init()
call MPI_Comm_rank(MPI_COMM_WORLD, rank)
if (rank == 0) then
  call MPI_Send(buf, 10, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
else if (rank == 1) then
  call MPI_Recv(buf, 10, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
end if
call MPI_Allreduce(rank, s, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
call MPI_Finalize()
end program
