/* A put beyond the area its destination registered: the destination
 * names the process that put.
 * expect: fail process 0 "bsp_put: bytes 4…20 are outside the 8 bytes process" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs();
	double x = 0, v[2] = {1, 2};
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_put(p - 1, v, &x, 4, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
