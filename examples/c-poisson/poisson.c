/*
 * poisson.c - the pinned Poisson problem in C on gridtui (app = "exec").
 *
 * -Δu = f on (0,1)³, u = 0 on the boundary, n interior points per axis,
 * h = 1/(n+1), f = 2((fy·fz + fx·fz) + fx·fy) with fx = x(1−x), Jacobi from
 * u = 0 until σ = max|u' − u| < ε, in exactly the arithmetic of gridtui's
 * apps/poisson, so that a synchronous run is the serial loop bit for bit.
 *
 * 1-D slab decomposition: the job splits the n planes along x (items = n,
 * unit = halo = n·n); this node owns planes [lo, hi) and keeps one ghost
 * plane on each side, filled by GRID_Receive. The scheme (synchronous,
 * asynchronous, hybrid) is the environment's: the same program runs all.
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
	const size_t plane = (size_t)(n * n), planes = sub.hi - sub.lo, bytes = plane * sizeof(double);
	const double h = 1.0 / (double)(n + 1);
	double *u = calloc((planes + 2) * plane, sizeof *u), *next = calloc((planes + 2) * plane, sizeof *u);
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
	if (lower && (rc = GRID_Send(&sub, down, (char *)(u + plane), bytes, DATA_FLAG))) die(&sub, "send", rc);
	if (upper && (rc = GRID_Send(&sub, up, (char *)(u + planes * plane), bytes, DATA_FLAG))) die(&sub, "send", rc);
	do {
		if (lower && (rc = GRID_Receive(&sub, down, (char *)u, bytes, DATA_FLAG)) < 0) die(&sub, "receive", rc);
		if (upper && (rc = GRID_Receive(&sub, up, (char *)(u + (planes + 1) * plane), bytes, DATA_FLAG)) < 0) die(&sub, "receive", rc);
		double sigma = 0;
		for (size_t i = 1; i <= planes; i++)
			for (long j = 0; j < n; j++)
				for (long k = 0; k < n; k++) {
					const double *c = u + (i * n + j) * n + k;
					double ym = j > 0 ? c[-n] : 0, yp = j < n - 1 ? c[n] : 0;
					double zm = k > 0 ? c[-1] : 0, zp = k < n - 1 ? c[1] : 0;
					double s = ((((c[-(long)plane] + c[plane]) + ym) + yp) + zm) + zp;
					double v = (s + hhf[((i - 1) * n + j) * n + k]) / 6.0;
					double d = v > *c ? v - *c : *c - v;
					if (d > sigma) sigma = d;
					next[(i * n + j) * n + k] = v;
				}
		double *t = u; u = next; next = t;
		if (lower && (rc = GRID_Send(&sub, down, (char *)(u + plane), bytes, DATA_FLAG))) die(&sub, "send", rc);
		if (upper && (rc = GRID_Send(&sub, up, (char *)(u + planes * plane), bytes, DATA_FLAG))) die(&sub, "send", rc);
		rc = GRID_Iterate(&sub, sigma);
	} while (rc > 0);
	if (rc < 0) die(&sub, "iterate", rc);
	if ((rc = GRID_Result(&sub, u + plane, planes * plane))) die(&sub, "result", rc);
	GRID_Finalize(&sub);
	free(u), free(next), free(hhf);
	return 0;
}
