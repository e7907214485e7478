! gridhpc.f90 - Fortran 2003 binding of gridhpc.h (ISO_C_BINDING) for
! programs that gridtui runs with app = "exec". Compile it with the program
! and link gridhpc.c:
!
!     cc -O2 -c -D_GNU_SOURCE gridhpc.c
!     gfortran -O2 gridhpc.f90 program.f90 gridhpc.o
!
! Buffers are passed by address (c_loc of a contiguous real(c_double) array
! with the TARGET attribute); sizes are in bytes, as in Listing 1.
module gridhpc
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: grid_subtask, grid_init, grid_send, grid_receive, grid_wait, grid_iterate, &
            grid_result, grid_finalize, grid_abort, grid_neighbour, &
            grid_checkpoint_register, grid_resumed
  integer(c_int), parameter, public :: DATA_FLAG = 1, CTRL_FLAG = 2, NOWAIT_FLAG = 4
  integer(c_int), parameter, public :: GRID_OK = 0

  ! The sub-task, as struct GRIDSubtask of gridhpc.h.
  type, bind(c) :: grid_subtask
    integer(c_int32_t) :: rank, ranks, cores, nneighbours
    integer(c_int64_t) :: lo, hi, unit, result_size
    real(c_double) :: eps
    type(c_ptr) :: neighbours, halo_size, params, priv
  end type grid_subtask

  interface
    integer(c_int) function grid_init(sub) bind(c, name="GRID_Init")
      import :: grid_subtask, c_int
      type(grid_subtask), intent(out) :: sub
    end function
    integer(c_int) function grid_send(sub, dest, buffer, size, flags) bind(c, name="GRID_Send")
      import :: grid_subtask, c_int, c_int32_t, c_ptr, c_size_t
      type(grid_subtask), intent(inout) :: sub
      integer(c_int32_t), value :: dest
      type(c_ptr), value :: buffer
      integer(c_size_t), value :: size
      integer(c_int), value :: flags
    end function
    integer(c_int) function grid_receive(sub, source, buffer, size, flags) bind(c, name="GRID_Receive")
      import :: grid_subtask, c_int, c_int32_t, c_ptr, c_size_t
      type(grid_subtask), intent(inout) :: sub
      integer(c_int32_t), value :: source
      type(c_ptr), value :: buffer
      integer(c_size_t), value :: size
      integer(c_int), value :: flags
    end function
    integer(c_int) function grid_wait(sub, rank, flags) bind(c, name="GRID_Wait")
      import :: grid_subtask, c_int, c_int32_t
      type(grid_subtask), intent(inout) :: sub
      integer(c_int32_t), intent(out) :: rank
      integer(c_int), intent(out) :: flags
    end function
    integer(c_int) function grid_iterate(sub, sigma) bind(c, name="GRID_Iterate")
      import :: grid_subtask, c_int, c_double
      type(grid_subtask), intent(inout) :: sub
      real(c_double), value :: sigma
    end function
    integer(c_int) function grid_result(sub, values, count) bind(c, name="GRID_Result")
      import :: grid_subtask, c_int, c_ptr, c_size_t
      type(grid_subtask), intent(inout) :: sub
      type(c_ptr), value :: values
      integer(c_size_t), value :: count
    end function
    integer(c_int) function grid_finalize(sub) bind(c, name="GRID_Finalize")
      import :: grid_subtask, c_int
      type(grid_subtask), intent(inout) :: sub
    end function
    integer(c_int) function grid_abort(sub, reason) bind(c, name="GRID_Abort")
      import :: grid_subtask, c_int, c_char
      type(grid_subtask), intent(inout) :: sub
      character(kind=c_char), dimension(*), intent(in) :: reason
    end function
    integer(c_int) function grid_checkpoint_register(sub, buffer, bytes) bind(c, name="GRID_CheckpointRegister")
      import :: grid_subtask, c_int, c_ptr, c_size_t
      type(grid_subtask), intent(inout) :: sub
      type(c_ptr), value :: buffer
      integer(c_size_t), value :: bytes
    end function
    integer(c_long_long) function grid_resumed(sub) bind(c, name="GRID_Resumed")
      import :: grid_subtask, c_long_long
      type(grid_subtask), intent(inout) :: sub
    end function
  end interface

contains

  ! grid_neighbour returns the rank of neighbour i (1-based).
  integer(c_int32_t) function grid_neighbour(sub, i)
    type(grid_subtask), intent(in) :: sub
    integer, intent(in) :: i
    integer(c_int64_t), pointer :: nb(:)
    call c_f_pointer(sub%neighbours, nb, [sub%nneighbours])
    grid_neighbour = int(nb(i), c_int32_t)
  end function
end module gridhpc
