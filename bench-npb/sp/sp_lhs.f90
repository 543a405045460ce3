! bench-npb SP: the left-hand sides and the block-diagonal transforms of
! the diagonalised ADI scheme (NPB 3.3-MPI SP's lhsx/lhsy/lhsz, txinvr,
! ninvr, pinvr, tzetar), and the update of u (add).
!
! lhs(:,:,:,1:5,c) holds the penta-diagonal system of the u factor along
! the current direction, lhs(...,6:10,c) the u+c and lhs(...,11:15,c) the
! u-c factor; entries 1..5 of a factor are the coefficients of the points
! l-2, l-1, l, l+1, l+2 of the line.

! The factor for the n-th of the five variables: 0 (u) for the first three,
! 5 (u+c) for the fourth and 10 (u-c) for the fifth.
integer function factor_of(m)
   implicit none
   integer, intent(in) :: m
   factor_of = max(0, (m - 3)*5)
end function factor_of

! The three x-factors of cell c on its interior points.
subroutine lhsx(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k, i0, i1, j0, j1, k0, k1, nx
   real(dp) :: ru1

   nx = cell_size(1, c)
   i0 = cstart(1, c)
   i1 = nx - cend(1, c) - 1
   j0 = cstart(2, c)
   j1 = cell_size(2, c) - cend(2, c) - 1
   k0 = cstart(3, c)
   k1 = cell_size(3, c) - cend(3, c) - 1

   do k = k0, k1
      do j = j0, j1
         do i = i0 - 1, i1 + 1
            ru1 = c3c4*rho_i(i, j, k, c)
            cv(i) = us(i, j, k, c)
            rhon(i) = max(dx2 + con43*ru1, dx5 + c1c5*ru1, dxmax + ru1, dx1)
         end do
         do i = i0, i1
            lhs(i, j, k, 1, c) = 0.0_dp
            lhs(i, j, k, 2, c) = -dttx2*cv(i - 1) - dttx1*rhon(i - 1)
            lhs(i, j, k, 3, c) = 1.0_dp + c2dttx1*rhon(i)
            lhs(i, j, k, 4, c) = dttx2*cv(i + 1) - dttx1*rhon(i + 1)
            lhs(i, j, k, 5, c) = 0.0_dp
         end do
      end do
   end do

   ! fourth-order dissipation
   if (cstart(1, c) > 0) then
      i = 1
      do k = k0, k1
         do j = j0, j1
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz5
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
            lhs(i + 1, j, k, 2, c) = lhs(i + 1, j, k, 2, c) - comz4
            lhs(i + 1, j, k, 3, c) = lhs(i + 1, j, k, 3, c) + comz6
            lhs(i + 1, j, k, 4, c) = lhs(i + 1, j, k, 4, c) - comz4
            lhs(i + 1, j, k, 5, c) = lhs(i + 1, j, k, 5, c) + comz1
         end do
      end do
   end if
   do k = k0, k1
      do j = j0, j1
         do i = 3*cstart(1, c), nx - 3*cend(1, c) - 1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
         end do
      end do
   end do
   if (cend(1, c) > 0) then
      i = nx - 3
      do k = k0, k1
         do j = j0, j1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i + 1, j, k, 1, c) = lhs(i + 1, j, k, 1, c) + comz1
            lhs(i + 1, j, k, 2, c) = lhs(i + 1, j, k, 2, c) - comz4
            lhs(i + 1, j, k, 3, c) = lhs(i + 1, j, k, 3, c) + comz5
         end do
      end do
   end if

   ! the u+c and u-c factors from the u factor
   do k = k0, k1
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 6, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 7, c) = lhs(i, j, k, 2, c) - dttx2*speed(i - 1, j, k, c)
            lhs(i, j, k, 8, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 9, c) = lhs(i, j, k, 4, c) + dttx2*speed(i + 1, j, k, c)
            lhs(i, j, k, 10, c) = lhs(i, j, k, 5, c)
            lhs(i, j, k, 11, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 12, c) = lhs(i, j, k, 2, c) + dttx2*speed(i - 1, j, k, c)
            lhs(i, j, k, 13, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 14, c) = lhs(i, j, k, 4, c) - dttx2*speed(i + 1, j, k, c)
            lhs(i, j, k, 15, c) = lhs(i, j, k, 5, c)
         end do
      end do
   end do
end subroutine lhsx

! The three y-factors of cell c on its interior points.
subroutine lhsy(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k, i0, i1, j0, j1, k0, k1, ny
   real(dp) :: ru1

   ny = cell_size(2, c)
   i0 = cstart(1, c)
   i1 = cell_size(1, c) - cend(1, c) - 1
   j0 = cstart(2, c)
   j1 = ny - cend(2, c) - 1
   k0 = cstart(3, c)
   k1 = cell_size(3, c) - cend(3, c) - 1

   do k = k0, k1
      do i = i0, i1
         do j = j0 - 1, j1 + 1
            ru1 = c3c4*rho_i(i, j, k, c)
            cv(j) = vs(i, j, k, c)
            rhoq(j) = max(dy3 + con43*ru1, dy5 + c1c5*ru1, dymax + ru1, dy1)
         end do
         do j = j0, j1
            lhs(i, j, k, 1, c) = 0.0_dp
            lhs(i, j, k, 2, c) = -dtty2*cv(j - 1) - dtty1*rhoq(j - 1)
            lhs(i, j, k, 3, c) = 1.0_dp + c2dtty1*rhoq(j)
            lhs(i, j, k, 4, c) = dtty2*cv(j + 1) - dtty1*rhoq(j + 1)
            lhs(i, j, k, 5, c) = 0.0_dp
         end do
      end do
   end do

   if (cstart(2, c) > 0) then
      j = 1
      do k = k0, k1
         do i = i0, i1
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz5
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
            lhs(i, j + 1, k, 2, c) = lhs(i, j + 1, k, 2, c) - comz4
            lhs(i, j + 1, k, 3, c) = lhs(i, j + 1, k, 3, c) + comz6
            lhs(i, j + 1, k, 4, c) = lhs(i, j + 1, k, 4, c) - comz4
            lhs(i, j + 1, k, 5, c) = lhs(i, j + 1, k, 5, c) + comz1
         end do
      end do
   end if
   do k = k0, k1
      do j = 3*cstart(2, c), ny - 3*cend(2, c) - 1
         do i = i0, i1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
         end do
      end do
   end do
   if (cend(2, c) > 0) then
      j = ny - 3
      do k = k0, k1
         do i = i0, i1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j + 1, k, 1, c) = lhs(i, j + 1, k, 1, c) + comz1
            lhs(i, j + 1, k, 2, c) = lhs(i, j + 1, k, 2, c) - comz4
            lhs(i, j + 1, k, 3, c) = lhs(i, j + 1, k, 3, c) + comz5
         end do
      end do
   end if

   do k = k0, k1
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 6, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 7, c) = lhs(i, j, k, 2, c) - dtty2*speed(i, j - 1, k, c)
            lhs(i, j, k, 8, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 9, c) = lhs(i, j, k, 4, c) + dtty2*speed(i, j + 1, k, c)
            lhs(i, j, k, 10, c) = lhs(i, j, k, 5, c)
            lhs(i, j, k, 11, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 12, c) = lhs(i, j, k, 2, c) + dtty2*speed(i, j - 1, k, c)
            lhs(i, j, k, 13, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 14, c) = lhs(i, j, k, 4, c) - dtty2*speed(i, j + 1, k, c)
            lhs(i, j, k, 15, c) = lhs(i, j, k, 5, c)
         end do
      end do
   end do
end subroutine lhsy

! The three z-factors of cell c on its interior points.
subroutine lhsz(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k, i0, i1, j0, j1, k0, k1, nz
   real(dp) :: ru1

   nz = cell_size(3, c)
   i0 = cstart(1, c)
   i1 = cell_size(1, c) - cend(1, c) - 1
   j0 = cstart(2, c)
   j1 = cell_size(2, c) - cend(2, c) - 1
   k0 = cstart(3, c)
   k1 = nz - cend(3, c) - 1

   do j = j0, j1
      do i = i0, i1
         do k = k0 - 1, k1 + 1
            ru1 = c3c4*rho_i(i, j, k, c)
            cv(k) = ws(i, j, k, c)
            rhos(k) = max(dz4 + con43*ru1, dz5 + c1c5*ru1, dzmax + ru1, dz1)
         end do
         do k = k0, k1
            lhs(i, j, k, 1, c) = 0.0_dp
            lhs(i, j, k, 2, c) = -dttz2*cv(k - 1) - dttz1*rhos(k - 1)
            lhs(i, j, k, 3, c) = 1.0_dp + c2dttz1*rhos(k)
            lhs(i, j, k, 4, c) = dttz2*cv(k + 1) - dttz1*rhos(k + 1)
            lhs(i, j, k, 5, c) = 0.0_dp
         end do
      end do
   end do

   if (cstart(3, c) > 0) then
      k = 1
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz5
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
            lhs(i, j, k + 1, 2, c) = lhs(i, j, k + 1, 2, c) - comz4
            lhs(i, j, k + 1, 3, c) = lhs(i, j, k + 1, 3, c) + comz6
            lhs(i, j, k + 1, 4, c) = lhs(i, j, k + 1, 4, c) - comz4
            lhs(i, j, k + 1, 5, c) = lhs(i, j, k + 1, 5, c) + comz1
         end do
      end do
   end if
   do k = 3*cstart(3, c), nz - 3*cend(3, c) - 1
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k, 5, c) = lhs(i, j, k, 5, c) + comz1
         end do
      end do
   end do
   if (cend(3, c) > 0) then
      k = nz - 3
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 1, c) = lhs(i, j, k, 1, c) + comz1
            lhs(i, j, k, 2, c) = lhs(i, j, k, 2, c) - comz4
            lhs(i, j, k, 3, c) = lhs(i, j, k, 3, c) + comz6
            lhs(i, j, k, 4, c) = lhs(i, j, k, 4, c) - comz4
            lhs(i, j, k + 1, 1, c) = lhs(i, j, k + 1, 1, c) + comz1
            lhs(i, j, k + 1, 2, c) = lhs(i, j, k + 1, 2, c) - comz4
            lhs(i, j, k + 1, 3, c) = lhs(i, j, k + 1, 3, c) + comz5
         end do
      end do
   end if

   do k = k0, k1
      do j = j0, j1
         do i = i0, i1
            lhs(i, j, k, 6, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 7, c) = lhs(i, j, k, 2, c) - dttz2*speed(i, j, k - 1, c)
            lhs(i, j, k, 8, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 9, c) = lhs(i, j, k, 4, c) + dttz2*speed(i, j, k + 1, c)
            lhs(i, j, k, 10, c) = lhs(i, j, k, 5, c)
            lhs(i, j, k, 11, c) = lhs(i, j, k, 1, c)
            lhs(i, j, k, 12, c) = lhs(i, j, k, 2, c) + dttz2*speed(i, j, k - 1, c)
            lhs(i, j, k, 13, c) = lhs(i, j, k, 3, c)
            lhs(i, j, k, 14, c) = lhs(i, j, k, 4, c) - dttz2*speed(i, j, k + 1, c)
            lhs(i, j, k, 15, c) = lhs(i, j, k, 5, c)
         end do
      end do
   end do
end subroutine lhsz

! rhs := T_xi^-1 rhs on all cells (into the eigenvector basis of the
! x-direction before the x-solve).
subroutine txinvr()
   use sp_data
   implicit none
   integer :: c, i, j, k
   real(dp) :: t1, t2, t3, ac, ru1, uu, vv, ww, r1, r2, r3, r4, r5, ac2inv

   do c = 1, ncells
      do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
         do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
            do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
               ru1 = rho_i(i, j, k, c)
               uu = us(i, j, k, c)
               vv = vs(i, j, k, c)
               ww = ws(i, j, k, c)
               ac = speed(i, j, k, c)
               ac2inv = ainv(i, j, k, c)*ainv(i, j, k, c)
               r1 = rhs(i, j, k, 1, c)
               r2 = rhs(i, j, k, 2, c)
               r3 = rhs(i, j, k, 3, c)
               r4 = rhs(i, j, k, 4, c)
               r5 = rhs(i, j, k, 5, c)
               t1 = c2*ac2inv*(qs(i, j, k, c)*r1 - uu*r2 - vv*r3 - ww*r4 + r5)
               t2 = bt*ru1*(uu*r1 - r2)
               t3 = (bt*ru1*ac)*t1
               rhs(i, j, k, 1, c) = r1 - t1
               rhs(i, j, k, 2, c) = -ru1*(ww*r1 - r4)
               rhs(i, j, k, 3, c) = ru1*(vv*r1 - r3)
               rhs(i, j, k, 4, c) = -t2 + t3
               rhs(i, j, k, 5, c) = t2 + t3
            end do
         end do
      end do
   end do
end subroutine txinvr

! rhs := N^-1 rhs on cell c (from the x- to the y-eigenvector basis).
subroutine ninvr(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k
   real(dp) :: r1, r2, r3, r4, r5, t1, t2

   do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
      do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
         do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
            r1 = rhs(i, j, k, 1, c)
            r2 = rhs(i, j, k, 2, c)
            r3 = rhs(i, j, k, 3, c)
            r4 = rhs(i, j, k, 4, c)
            r5 = rhs(i, j, k, 5, c)
            t1 = bt*r3
            t2 = 0.5_dp*(r4 + r5)
            rhs(i, j, k, 1, c) = -r2
            rhs(i, j, k, 2, c) = r1
            rhs(i, j, k, 3, c) = bt*(r4 - r5)
            rhs(i, j, k, 4, c) = -t1 + t2
            rhs(i, j, k, 5, c) = t1 + t2
         end do
      end do
   end do
end subroutine ninvr

! rhs := P^-1 rhs on cell c (from the y- to the z-eigenvector basis).
subroutine pinvr(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k
   real(dp) :: r1, r2, r3, r4, r5, t1, t2

   do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
      do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
         do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
            r1 = rhs(i, j, k, 1, c)
            r2 = rhs(i, j, k, 2, c)
            r3 = rhs(i, j, k, 3, c)
            r4 = rhs(i, j, k, 4, c)
            r5 = rhs(i, j, k, 5, c)
            t1 = bt*r1
            t2 = 0.5_dp*(r4 + r5)
            rhs(i, j, k, 1, c) = bt*(r4 - r5)
            rhs(i, j, k, 2, c) = -r3
            rhs(i, j, k, 3, c) = r2
            rhs(i, j, k, 4, c) = -t1 + t2
            rhs(i, j, k, 5, c) = t1 + t2
         end do
      end do
   end do
end subroutine pinvr

! rhs := T_zeta rhs on cell c (back from the z-eigenvector basis).
subroutine tzetar(c)
   use sp_data
   implicit none
   integer, intent(in) :: c
   integer :: i, j, k
   real(dp) :: t1, t2, t3, ac, xvel, yvel, zvel, r1, r2, r3, r4, r5
   real(dp) :: btuz, acinv, ac2u, uzik1

   do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
      do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
         do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
            xvel = us(i, j, k, c)
            yvel = vs(i, j, k, c)
            zvel = ws(i, j, k, c)
            ac = speed(i, j, k, c)
            acinv = ainv(i, j, k, c)
            ac2u = ac*ac
            r1 = rhs(i, j, k, 1, c)
            r2 = rhs(i, j, k, 2, c)
            r3 = rhs(i, j, k, 3, c)
            r4 = rhs(i, j, k, 4, c)
            r5 = rhs(i, j, k, 5, c)
            uzik1 = u(i, j, k, 1, c)
            btuz = bt*uzik1
            t1 = btuz*acinv*(r4 + r5)
            t2 = r3 + t1
            t3 = btuz*(r4 - r5)
            rhs(i, j, k, 1, c) = t2
            rhs(i, j, k, 2, c) = -uzik1*r2 + xvel*t2
            rhs(i, j, k, 3, c) = uzik1*r1 + yvel*t2
            rhs(i, j, k, 4, c) = zvel*t2 + t3
            rhs(i, j, k, 5, c) = uzik1*(-xvel*r2 + yvel*r1) &
                                 + qs(i, j, k, c)*t2 + c2iv*ac2u*t1 + zvel*t3
         end do
      end do
   end do
end subroutine tzetar

! u := u + rhs on the interior points.
subroutine add()
   use sp_data
   implicit none
   integer :: c, i, j, k, m

   do c = 1, ncells
      do m = 1, 5
         do k = cstart(3, c), cell_size(3, c) - cend(3, c) - 1
            do j = cstart(2, c), cell_size(2, c) - cend(2, c) - 1
               do i = cstart(1, c), cell_size(1, c) - cend(1, c) - 1
                  u(i, j, k, m, c) = u(i, j, k, m, c) + rhs(i, j, k, m, c)
               end do
            end do
         end do
      end do
   end do
end subroutine add

! One time step of the diagonalised ADI scheme.
subroutine adi()
   implicit none
   call copy_faces()
   call txinvr()
   call x_solve()
   call y_solve()
   call z_solve()
   call add()
end subroutine adi
