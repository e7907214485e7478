/*
 * pingpong.c: the MPI ping-pong that `gridtui bench rmnp` is compared with
 * (docs/bench/rmnp.md). Rank 0 sends size bytes to rank 1, which sends them
 * back; like the OSU micro-benchmarks' osu_latency, the one-way latency is half
 * a round trip, and bandwidth is size over it. Each size is measured for about
 * ROUND seconds per round, ROUNDS rounds, and the best round is printed, as the
 * Go harness does.
 *
 *   mpicc -O2 -o /tmp/mpi-pingpong pingpong.c
 *   mpirun --allow-run-as-root -np 2 --mca btl tcp,self \
 *       --mca btl_tcp_if_include lo /tmp/mpi-pingpong 8 524288 4194304
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 5
#define ROUND 0.05

static double round_trip(char *buf, int size, int rank, long n)
{
	double t0 = MPI_Wtime();
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("size_bytes one_way_us mb_per_s\n");
	for (int a = 1; a < argc; a++) {
		int size = atoi(argv[a]);
		char *buf = malloc(size);
		memset(buf, 1, size);
		round_trip(buf, size, rank, 10); /* warm-up */
		/* Calibrate on rank 0 so that both ranks run the same count. */
		double t = round_trip(buf, size, rank, 10) / 10;
		long n = t > 0 ? (long)(ROUND / t) + 1 : 1000;
		if (n < 10)
			n = 10;
		MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
		double best = 1e30;
		for (int r = 0; r < ROUNDS; r++) {
			double e = round_trip(buf, size, rank, n) / (2.0 * n);
			if (e < best)
				best = e;
		}
		if (rank == 0)
			printf("%d %.2f %.0f\n", size, best * 1e6, size / best / 1e6);
		free(buf);
	}
	MPI_Finalize();
	return 0;
}
