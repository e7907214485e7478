/* A put to a process that does not exist.
 * expect: fail process 0 "bsp_put: process"
 * expect: fail "does not exist (bsp_nprocs() =" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x = 0;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_put(bsp_nprocs(), &x, &x, 0, sizeof x);
	bsp_end();
	return 0;
}
