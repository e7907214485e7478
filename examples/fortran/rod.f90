! rod.f90 - the rod of gridtui's tutorial in Fortran on gridtui (app = "exec"):
! -u'' = 1 on (0,1), u(0) = u(1) = 0, n interior points (the job's items),
! Jacobi u'(i) = (u(i-1) + u(i+1) + h*h) / 2 on this node's range of points,
! one ghost value on each side.
program rod
  use, intrinsic :: iso_c_binding
  use gridhpc
  implicit none
  type(grid_subtask) :: sub
  real(c_double), allocatable, target :: u(:), v(:)
  real(c_double) :: h, sigma
  integer(c_size_t), parameter :: one = 8
  integer :: m, i, q, rc
  integer(c_int32_t) :: nb

  if (grid_init(sub) /= GRID_OK) stop 1
  m = int(sub%hi - sub%lo)
  h = 1.0d0 / real(count_points(), c_double)
  allocate(u(0:m+1), v(0:m+1))
  u = 0; v = 0
  call exchange_send()
  do
    do q = 1, int(sub%nneighbours)
      nb = grid_neighbour(sub, q)
      if (nb < sub%rank) then
        rc = grid_receive(sub, nb, c_loc(u(0)), one, DATA_FLAG)
      else
        rc = grid_receive(sub, nb, c_loc(u(m+1)), one, DATA_FLAG)
      end if
      if (rc < 0) stop 2
    end do
    sigma = 0
    do i = 1, m
      v(i) = (u(i-1) + u(i+1) + h*h) / 2
      sigma = max(sigma, abs(v(i) - u(i)))
    end do
    u(1:m) = v(1:m)
    call exchange_send()
    if (grid_iterate(sub, sigma) <= 0) exit
  end do
  if (grid_result(sub, c_loc(u(1)), int(m, c_size_t)) /= GRID_OK) stop 3
  rc = grid_finalize(sub)

contains

  ! count_points returns n + 1 for the job's n points (h = 1/(n+1)): the
  ! program's first argument.
  integer function count_points()
    character(len=32) :: arg
    call get_command_argument(1, arg)
    read(arg, *) count_points
    count_points = count_points + 1
  end function

  subroutine exchange_send()
    do q = 1, int(sub%nneighbours)
      nb = grid_neighbour(sub, q)
      if (nb < sub%rank) then
        rc = grid_send(sub, nb, c_loc(u(1)), one, DATA_FLAG)
      else
        rc = grid_send(sub, nb, c_loc(u(m)), one, DATA_FLAG)
      end if
      if (rc /= GRID_OK) stop 4
    end do
  end subroutine
end program rod
