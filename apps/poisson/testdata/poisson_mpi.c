/* The C + Open MPI peer of the Poisson time-to-solution benchmark: the
 * pinned problem of DESIGN.md (−Δu = f on (0,1)³, Jacobi from u = 0 until
 * σ = max|u' − u| < eps), the grid cut in slabs along x, one per rank, the
 * halos exchanged with MPI_Sendrecv and σ reduced with MPI_Allreduce every
 * iteration: what a scientist writes with MPI. Built with
 * mpicc -O3 -march=native. Usage: mpirun -np P poisson_mpi n eps. Rank 0
 * prints the iterations, the sum of u (k, j, i order) and the solve time. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double bump(double x) { return x * (1 - x); }

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3) {
		if (rank == 0)
			fprintf(stderr, "usage: poisson_mpi n eps\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int n = atoi(argv[1]);
	double eps = atof(argv[2]), h = 1.0 / (n + 1);
	int lo = (int)((long)n * rank / size), hi = (int)((long)n * (rank + 1) / size), m = hi - lo;
	long sy = n + 2, sx = sy * sy, size3 = (m + 2) * sx;
	double *u = calloc(size3, sizeof *u), *next = calloc(size3, sizeof *next);
	double *hhf = malloc((size_t)m * n * n * sizeof *hhf);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++) {
				double fx = bump((lo + i + 1) * h), fy = bump((j + 1) * h), fz = bump((k + 1) * h);
				hhf[((long)i * n + j) * n + k] = (h * h) * (2.0 * ((fy * fz + fx * fz) + fx * fy));
			}
	int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime(), sigma = 1;
	int iters = 0;
	while (sigma >= eps) {
		/* planes 1 and m are sent; planes 0 and m+1 are the halos */
		MPI_Sendrecv(u + sx, sx, MPI_DOUBLE, below, 0, u + (m + 1) * sx, sx, MPI_DOUBLE, above, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(u + m * sx, sx, MPI_DOUBLE, above, 1, u, sx, MPI_DOUBLE, below, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		double local = 0;
		for (int i = 0; i < m; i++)
			for (int j = 0; j < n; j++) {
				const double *f = hhf + ((long)i * n + j) * n;
				long base = (i + 1) * sx + (j + 1) * sy + 1;
				for (int k = 0; k < n; k++) {
					long c = base + k;
					double s = ((((u[c - sx] + u[c + sx]) + u[c - sy]) + u[c + sy]) + u[c - 1]) + u[c + 1];
					double v = (s + f[k]) / 6.0;
					double d = fabs(v - u[c]);
					local = d > local ? d : local;
					next[c] = v;
				}
			}
		double *t = u;
		u = next;
		next = t;
		iters++;
		MPI_Allreduce(&local, &sigma, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	}
	double dt = MPI_Wtime() - t0;
	/* the checksum: each rank's slab gathered on rank 0 */
	double *all = rank == 0 ? malloc((size_t)n * n * n * sizeof *all) : NULL;
	double *mine = malloc((size_t)m * n * n * sizeof *mine);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++)
			memcpy(mine + ((long)i * n + j) * n, u + (i + 1) * sx + (j + 1) * sy + 1, n * sizeof *mine);
	int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
	for (int r = 0; r < size; r++) {
		int rlo = (int)((long)n * r / size), rhi = (int)((long)n * (r + 1) / size);
		counts[r] = (rhi - rlo) * n * n;
		displs[r] = rlo * n * n;
	}
	MPI_Gatherv(mine, m * n * n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		double sum = 0;
		for (int k = 0; k < n; k++)
			for (int j = 0; j < n; j++)
				for (int i = 0; i < n; i++)
					sum += all[((long)i * n + j) * n + k];
		printf("iterations %d sum %.17g seconds %.6f\n", iters, sum, dt);
	}
	MPI_Finalize();
	return 0;
}
