/* bsp_abort ends the run with its message.
 * expect: fail process 0 "bsp_abort: the matrix is singular at row 7" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_abort("the matrix is singular at row %d", 7);
	bsp_sync();
	bsp_end();
	return 0;
}
