/*
 * poisson.c - the pinned Poisson problem in C on gridtui (app = "exec").
 *
 * -Δu = f on (0,1)³, u = 0 on the boundary, n interior points per axis,
 * h = 1/(n+1), f = 2((fy·fz + fx·fz) + fx·fy) with fx = x(1−x), Jacobi from
 * u = 0 until σ = max|u' − u| < ε, in exactly the arithmetic of gridtui's
 * apps/poisson, so that a synchronous run is the serial loop bit for bit.
 *
 * 1-D slab decomposition: the job splits the n planes along x (items = n,
 * unit = halo = n·n); this node owns planes [lo, hi). Its arrays hold them
 * with a layer of ghost values all round: a ghost plane on each side along
 * x, filled from GRID_Receive, and a ring of zeros (the boundary values)
 * around every plane, so the sweep's inner loop has no branch — the loop
 * of the C + Open MPI peer (apps/poisson/testdata/poisson_mpi.c), which
 * the time-to-solution benchmark runs beside this program. The messages
 * are the owned planes without their ring (n·n values), packed into and
 * unpacked from the window's own buffers (GRID_SendBuffer,
 * GRID_ReceiveBuffer). The scheme (synchronous, asynchronous, hybrid) is
 * the environment's: the same program runs all.
 *
 * Usage: poisson N   (started by a gridtui worker; see sync.toml)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gridhpc.h"

static double bump(double x) { return x * (1 - x); }

static int die(GRIDSubtask *s, const char *what, int rc)
{
	fprintf(stderr, "poisson: rank %u: %s: %s\n", s->rank, what, GRID_Strerror(rc));
	exit(1);
}

/* unpad copies the n·n values inside a padded plane's ring to out. */
static void unpad(double *out, const double *padded, long n)
{
	for (long j = 0; j < n; j++)
		memcpy(out + j * n, padded + (j + 1) * (n + 2) + 1, n * sizeof *out);
}

/* send_plane sends the padded plane's owned values to neighbour q, packed in the
 * window's buffer for q. */
static void send_plane(GRIDSubtask *s, uint32_t q, const double *padded, long n)
{
	char *buf = GRID_SendBuffer(s, q);
	if (!buf) die(s, "send buffer", GRID_ERANK);
	unpad((double *)buf, padded, n);
	int rc = GRID_Send(s, q, buf, (size_t)(n * n) * sizeof(double), DATA_FLAG);
	if (rc) die(s, "send", rc);
}

/* receive_plane fills the padded ghost plane with neighbour q's values. */
static void receive_plane(GRIDSubtask *s, uint32_t q, double *padded, long n)
{
	char *buf = GRID_ReceiveBuffer(s, q);
	if (!buf) die(s, "receive buffer", GRID_ERANK);
	int rc = GRID_Receive(s, q, buf, (size_t)(n * n) * sizeof(double), DATA_FLAG);
	if (rc < 0) die(s, "receive", rc);
	const double *in = (const double *)buf;
	for (long j = 0; j < n; j++)
		memcpy(padded + (j + 1) * (n + 2) + 1, in + j * n, n * sizeof *in);
}

int main(int argc, char **argv)
{
	GRIDSubtask sub;
	int rc = GRID_Init(&sub);
	if (rc != GRID_OK) {
		fprintf(stderr, "poisson: GRID_Init: %s\n", GRID_Strerror(rc));
		return 1;
	}
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	if (n < 1 || sub.unit != (uint64_t)(n * n) || sub.hi > (uint64_t)n) {
		char why[128];
		snprintf(why, sizeof why, "n = %ld does not fit the job (unit %llu, items up to %llu)", n,
			(unsigned long long)sub.unit, (unsigned long long)sub.hi);
		GRID_Abort(&sub, why);
		return 1;
	}
	/* sy, sx: the strides of a padded row and plane; c(i, j, k) = i·sx + j·sy + k */
	const long sy = n + 2, sx = sy * sy;
	const size_t plane = (size_t)(n * n), planes = sub.hi - sub.lo;
	const double h = 1.0 / (double)(n + 1);
	double *u = calloc((planes + 2) * sx, sizeof *u), *next = calloc((planes + 2) * sx, sizeof *u);
	double *hhf = malloc(planes * plane * sizeof *hhf);
	if (!u || !next || !hhf) {
		GRID_Abort(&sub, "out of memory");
		return 1;
	}
	for (size_t i = 0; i < planes; i++)
		for (long j = 0; j < n; j++)
			for (long k = 0; k < n; k++) {
				double fx = bump((double)(sub.lo + i + 1) * h), fy = bump((double)(j + 1) * h), fz = bump((double)(k + 1) * h);
				hhf[(i * n + j) * n + k] = (h * h) * (2.0 * ((fy * fz + fx * fz) + fx * fy));
			}
	/* lower and upper neighbour, if any (a chain along x) */
	int lower = sub.lo > 0, upper = sub.hi < (uint64_t)n;
	uint32_t down = sub.rank - 1, up = sub.rank + 1;
	if (lower) send_plane(&sub, down, u + sx, n);
	if (upper) send_plane(&sub, up, u + planes * sx, n);
	do {
		if (lower) receive_plane(&sub, down, u, n);
		if (upper) receive_plane(&sub, up, u + (planes + 1) * sx, n);
		double sigma = 0;
		for (size_t i = 1; i <= planes; i++)
			for (long j = 1; j <= n; j++) {
				const double *f = hhf + ((i - 1) * n + (j - 1)) * n - 1;
				const long base = (long)i * sx + j * sy;
				for (long k = 1; k <= n; k++) {
					const long c = base + k;
					double s = ((((u[c - sx] + u[c + sx]) + u[c - sy]) + u[c + sy]) + u[c - 1]) + u[c + 1];
					double v = (s + f[k]) / 6.0;
					double d = v > u[c] ? v - u[c] : u[c] - v;
					if (d > sigma) sigma = d;
					next[c] = v;
				}
			}
		double *t = u; u = next; next = t;
		if (lower) send_plane(&sub, down, u + sx, n);
		if (upper) send_plane(&sub, up, u + planes * sx, n);
		rc = GRID_Iterate(&sub, sigma);
	} while (rc > 0);
	if (rc < 0) die(&sub, "iterate", rc);
	/* the result: the owned planes without their ring, x-major (into hhf, done with) */
	for (size_t i = 0; i < planes; i++)
		unpad(hhf + i * plane, u + (i + 1) * sx, n);
	if ((rc = GRID_Result(&sub, hhf, planes * plane))) die(&sub, "result", rc);
	GRID_Finalize(&sub);
	free(u), free(next), free(hhf);
	return 0;
}
