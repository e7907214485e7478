/* bspbench.c: the BSP parameters as Bisseling's bspbench measures them
 * (BSPedupack), and two figures for gridtui's benchmarks.
 *
 *   bspbench sync N       the mean time of an empty superstep (N bsp_syncs)
 *   bspbench put BYTES N  the time of a superstep in which process 0 puts
 *                         BYTES into process 1, less an empty superstep
 *   bspbench glr H N      r (flop/s, DAXPY), and g and l by least squares
 *                         over h-relations h = 0 … H of single-word puts
 *
 * Process 0 prints "name value" lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bsp.h"

static double empty(int n) {
	bsp_sync();
	double t0 = bsp_time();
	for (int i = 0; i < n; i++)
		bsp_sync();
	return (bsp_time() - t0) / n;
}

static void put(int bytes, int n) {
	char *src = malloc(bytes), *dst = malloc(bytes);
	memset(src, 1, bytes);
	bsp_push_reg(dst, bytes);
	bsp_sync();
	double e = empty(n);
	double best = 1e30;
	for (int i = 0; i < n; i++) {
		double t0 = bsp_time();
		if (bsp_pid() == 0 && bsp_nprocs() > 1)
			bsp_put(1, src, dst, 0, bytes);
		bsp_sync();
		double t = bsp_time() - t0;
		if (t < best)
			best = t;
	}
	if (bsp_pid() == 0) {
		printf("empty_us %.3f\n", 1e6 * e);
		printf("put_s %.6f\n", best - e);
		printf("put_MBps %.1f\n", bytes / (best - e) / 1e6);
		printf("put_raw_MBps %.1f\n", bytes / best / 1e6); /* the whole superstep, barrier included */
	}
}

/* rate measures DAXPY flops per second, as bspbench does. */
static double rate(void) {
	int n = 1024, reps = 2000;
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double)), a = 1.0 / 3;
	for (int i = 0; i < n; i++)
		x[i] = y[i] = (double)i;
	double t0 = bsp_time();
	for (int k = 0; k < reps; k++) {
		for (int i = 0; i < n; i++)
			y[i] += a * x[i];
		a = -a;
	}
	double t = bsp_time() - t0;
	if (y[n / 2] < 0)
		printf("?");
	return 2.0 * n * reps / t;
}

static void glr(int hmax, int n) {
	int p = bsp_nprocs(), s = bsp_pid();
	double r = rate();
	double *src = malloc((hmax + 1) * sizeof(double)), *dst = malloc((p * hmax + 1) * sizeof(double));
	for (int i = 0; i <= hmax; i++)
		src[i] = i;
	bsp_push_reg(dst, (p * hmax + 1) * (int)sizeof(double));
	bsp_sync();
	double *t = malloc((hmax + 1) * sizeof(double));
	for (int h = 0; h <= hmax; h++) {
		bsp_sync();
		double t0 = bsp_time();
		for (int k = 0; k < n; k++) {
			/* an h-relation: h single words out, h in (bspbench's pattern) */
			for (int i = 0; i < h; i++) {
				int to = p > 1 ? (s + 1 + i % (p - 1)) % p : s;
				bsp_put(to, &src[i], dst, (s * hmax + i) * (int)sizeof(double), (int)sizeof(double));
			}
			bsp_sync();
		}
		t[h] = (bsp_time() - t0) / n;
	}
	/* least squares T(h) = l + g h */
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = hmax + 1;
	for (int h = 0; h <= hmax; h++) {
		sx += h;
		sy += t[h];
		sxx += (double)h * h;
		sxy += h * t[h];
	}
	double g = (m * sxy - sx * sy) / (m * sxx - sx * sx), l = (sy - g * sx) / m;
	if (s == 0) {
		printf("r_Mflops %.1f\n", r / 1e6);
		printf("g_us_per_word %.4f\n", 1e6 * g);
		printf("g_ns_per_byte %.3f\n", 1e9 * g / sizeof(double));
		printf("l_us %.2f\n", 1e6 * l);
		printf("g_flops %.1f\n", g * r);
		printf("l_flops %.0f\n", l * r);
	}
}

int main(int argc, char **argv) {
	bsp_begin(bsp_nprocs());
	const char *mode = argc > 1 ? argv[1] : "sync";
	if (strcmp(mode, "sync") == 0) {
		double e = empty(argc > 2 ? atoi(argv[2]) : 1000);
		if (bsp_pid() == 0)
			printf("empty_us %.3f\n", 1e6 * e);
	} else if (strcmp(mode, "put") == 0) {
		put(argc > 2 ? atoi(argv[2]) : 4 << 20, argc > 3 ? atoi(argv[3]) : 10);
	} else if (strcmp(mode, "glr") == 0) {
		glr(argc > 2 ? atoi(argv[2]) : 64, argc > 3 ? atoi(argv[3]) : 20);
	} else {
		bsp_abort("unknown mode %s", mode);
	}
	bsp_end();
	return 0;
}
