/* bsp_pop_reg takes effect at bsp_sync: a put in the superstep of the pop
 * is delivered; a registration pushed again afterwards is a new one.
 * expect: ok */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int x = 0, y = 0, v = 1;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	bsp_put((s + 1) % p, &v, &x, 0, sizeof v);
	bsp_pop_reg(&x);
	bsp_sync();
	bsp_push_reg(&y, sizeof y);
	bsp_sync();
	v = 2;
	bsp_put((s + 1) % p, &v, &y, 0, sizeof v);
	bsp_sync();
	if (x != 1 || y != 2)
		bsp_abort("process %d: x = %d (want 1), y = %d (want 2)", s, x, y);
	bsp_end();
	return 0;
}
