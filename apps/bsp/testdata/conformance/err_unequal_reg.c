/* Unequal registrations: process 0 registers one more area than the others.
 * procs: 2 4 8
 * expect: fail "bsp_push_reg: registered"
 * expect: fail "every process must register the same number" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x, y;
	bsp_push_reg(&x, sizeof x);
	if (bsp_pid() == 0)
		bsp_push_reg(&y, sizeof y);
	bsp_sync();
	bsp_end();
	return 0;
}
