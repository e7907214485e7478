/* mpibarrier.c: the mean time of MPI_Barrier on the ranks of mpirun, the
 * baseline of bspbench's empty superstep. Rank 0 prints "barrier_us X". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int n = argc > 1 ? atoi(argv[1]) : 1000, rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (int i = 0; i < n; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	double t = (MPI_Wtime() - t0) / n;
	if (rank == 0)
		printf("barrier_us %.3f\n", 1e6 * t);
	MPI_Finalize();
	return 0;
}
