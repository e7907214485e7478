/* A put takes effect at the end of the superstep, not before.
 * expect: ok */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int x = -1;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	int v = s;
	bsp_put((s + 1) % p, &v, &x, 0, sizeof v);
	if (x != -1)
		bsp_abort("process %d: x = %d before bsp_sync", s, x);
	bsp_sync();
	if (x != (s + p - 1) % p)
		bsp_abort("process %d: x = %d after bsp_sync, want %d", s, x, (s + p - 1) % p);
	bsp_end();
	return 0;
}
