/* A put into memory that is not registered.
 * expect: fail process 0 "bsp_put: the area"
 * expect: fail "is not registered" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x = 0, v = 1;
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_put(0, &v, &x, 0, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
