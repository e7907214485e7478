/* A process that ends without bsp_end.
 * expect: fail process 0 "exited with status 0 in superstep 1, without calling bsp_end" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	bsp_sync();
	if (bsp_pid() == 0)
		return 0;
	bsp_sync();
	bsp_end();
	return 0;
}
