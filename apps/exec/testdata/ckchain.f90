! ckchain.f90 - testdata/ckchain.c in Fortran (TestRunRecoversExecFortran):
! Jacobi for -u'' = 1 on a chain of items points, one value per item and per
! message, which registers its state (grid_checkpoint_register) and so
! survives a lost node. It swaps two arrays (pointers) each iteration and
! registers both and a counter of its own; a restarted copy swaps them back
! by the parity grid_resumed gives. The result is u, its last value on the
! last rank replaced by the counter.
program ckchain
  use, intrinsic :: iso_c_binding
  use gridhpc
  implicit none
  type(grid_subtask) :: sub
  real(c_double), allocatable, target :: a(:), b(:)
  real(c_double), pointer :: u(:), v(:), t(:)
  real(c_double), target :: count
  real(c_double) :: sigma
  integer(c_size_t), parameter :: one = 8
  integer(c_long_long) :: k
  integer :: n, i, rc
  logical :: lower, upper

  if (grid_init(sub) /= GRID_OK) stop 1
  n = int(sub%hi - sub%lo)
  allocate(a(0:n+1), b(0:n+1))
  a = 0; b = 0; count = 0
  if (grid_checkpoint_register(sub, c_loc(a(0)), int(8 * (n + 2), c_size_t)) /= GRID_OK) stop 2
  if (grid_checkpoint_register(sub, c_loc(b(0)), int(8 * (n + 2), c_size_t)) /= GRID_OK) stop 2
  if (grid_checkpoint_register(sub, c_loc(count), one) /= GRID_OK) stop 2
  u => a
  v => b
  lower = sub%lo > 0
  upper = sub%rank + 1 < sub%ranks
  call send()
  k = grid_resumed(sub)
  if (k < 0) stop 3
  if (mod(k, 2_c_long_long) == 1) call swap()
  do
    if (lower) then
      if (grid_receive(sub, sub%rank - 1, c_loc(u(0)), one, DATA_FLAG) < 0) stop 4
    end if
    if (upper) then
      if (grid_receive(sub, sub%rank + 1, c_loc(u(n+1)), one, DATA_FLAG) < 0) stop 4
    end if
    sigma = 0
    do i = 1, n
      v(i) = (u(i-1) + u(i+1) + 1.0d0) / 2.0d0
      sigma = max(sigma, abs(v(i) - u(i)))
    end do
    call swap()
    count = count + 1
    call send()
    rc = grid_iterate(sub, sigma)
    if (rc < 0) stop 5
    if (rc == 0) exit
  end do
  if (.not. upper) u(n) = count
  if (grid_result(sub, c_loc(u(1)), int(n, c_size_t)) /= GRID_OK) stop 6
  rc = grid_finalize(sub)

contains

  subroutine swap()
    t => u
    u => v
    v => t
  end subroutine

  subroutine send()
    if (lower) then
      if (grid_send(sub, sub%rank - 1, c_loc(u(1)), one, DATA_FLAG) /= GRID_OK) stop 7
    end if
    if (upper) then
      if (grid_send(sub, sub%rank + 1, c_loc(u(n)), one, DATA_FLAG) /= GRID_OK) stop 7
    end if
  end subroutine
end program ckchain
