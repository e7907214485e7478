/* bsp_begin twice.
 * expect: fail process 0 "bsp_begin: called a second time" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	if (bsp_pid() == 0)
		bsp_begin(bsp_nprocs());
	bsp_end();
	return 0;
}
