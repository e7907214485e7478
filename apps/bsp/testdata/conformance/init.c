/* bsp_init: the non-SPMD start; main calls the SPMD part itself.
 * expect: ok "spmd of" */
#include <stdio.h>
#include "bsp.h"

static void spmd(void) {
	bsp_begin(bsp_nprocs());
	int x = bsp_pid(), sum = 0;
	bsp_push_reg(&sum, sizeof sum);
	bsp_sync();
	for (int t = 0; t < bsp_nprocs(); t++)
		bsp_send(t, NULL, &x, sizeof x);
	bsp_sync();
	int n, bytes;
	bsp_qsize(&n, &bytes);
	for (int k = 0; k < n; k++) {
		int v;
		bsp_move(&v, sizeof v);
		sum += v;
	}
	int p = bsp_nprocs();
	if (sum != p * (p - 1) / 2)
		bsp_abort("process %d: sum %d", bsp_pid(), sum);
	if (bsp_pid() == 0)
		printf("spmd of %d\n", p);
	bsp_end();
}

int main(int argc, char **argv) {
	bsp_init(spmd, argc, argv);
	spmd();
	return 0;
}
