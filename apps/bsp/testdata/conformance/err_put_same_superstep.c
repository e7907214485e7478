/* A put into memory registered in the same superstep: a registration
 * takes effect at the next bsp_sync.
 * expect: fail process 0 "bsp_put: the area"
 * expect: fail "registered in this superstep" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x = 0, v = 1;
	bsp_push_reg(&x, sizeof x);
	if (bsp_pid() == 0)
		bsp_put(0, &v, &x, 0, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
