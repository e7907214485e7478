/* bsp_pid before bsp_begin.
 * expect: fail "bsp_pid: called before bsp_begin" */
#include "bsp.h"

int main(void) {
	if (bsp_pid() == 0)
		bsp_begin(bsp_nprocs());
	bsp_end();
	return 0;
}
