/* A get beyond the area its source registered.
 * expect: fail process 0 "bsp_get: bytes 0…16 are outside the 8 bytes process" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs();
	double x = 0, v[2];
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_get(p - 1, &x, 0, v, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
