/* The C peer of the 7-point kernel's benchmark: the pinned Poisson problem's
 * Jacobi sweep (DESIGN.md) in plain C, as a scientist would write it, built
 * with gcc -O3 -march=native. Usage: jacobi7 n sweeps. It prints the sweep
 * rate in million point-updates per second and a checksum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double bump(double x) { return x * (1 - x); }

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: jacobi7 n sweeps\n");
		return 2;
	}
	int n = atoi(argv[1]), sweeps = atoi(argv[2]);
	long sy = n + 2, sx = sy * sy, size = (n + 2) * sx;
	double *u = calloc(size, sizeof *u), *next = calloc(size, sizeof *next);
	double *hhf = malloc((size_t)n * n * n * sizeof *hhf);
	/* Touch every page before the clock starts (calloc's pages are mapped on
	 * first write, which the first sweep would pay for). */
	memset(u, 0, size * sizeof *u);
	memset(next, 0, size * sizeof *next);
	double h = 1.0 / (n + 1);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++) {
				double fx = bump((i + 1) * h), fy = bump((j + 1) * h), fz = bump((k + 1) * h);
				hhf[((long)i * n + j) * n + k] = (h * h) * (2.0 * ((fy * fz + fx * fz) + fx * fy));
			}
	double sigma = 0, t0 = now();
	for (int it = 0; it < sweeps; it++) {
		sigma = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++) {
				const double *f = hhf + ((long)i * n + j) * n;
				long base = (i + 1) * sx + (j + 1) * sy + 1;
				for (int k = 0; k < n; k++) {
					long c = base + k;
					double s = ((((u[c - sx] + u[c + sx]) + u[c - sy]) + u[c + sy]) + u[c - 1]) + u[c + 1];
					double v = (s + f[k]) / 6.0;
					double d = fabs(v - u[c]);
					sigma = d > sigma ? d : sigma;
					next[c] = v;
				}
			}
		double *t = u;
		u = next;
		next = t;
	}
	double dt = now() - t0;
	double sum = 0;
	for (long c = 0; c < size; c++)
		sum += u[c];
	printf("%.3f Mupdates/s sigma %.17g sum %.17g\n", (double)n * n * n * sweeps / dt / 1e6, sigma, sum);
	return 0;
}
