/* A put into memory whose registration was removed in an earlier
 * superstep.
 * expect: fail process 0 "bsp_put: the area"
 * expect: fail "is not registered" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x = 0, v = 1;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	bsp_pop_reg(&x);
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_put(0, &v, &x, 0, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
