/* Registrations removed in a different order on process 0.
 * procs: 2 4 8
 * expect: fail "bsp_pop_reg: removed registrations" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x, y;
	bsp_push_reg(&x, sizeof x);
	bsp_push_reg(&y, sizeof y);
	bsp_sync();
	bsp_pop_reg(bsp_pid() == 0 ? &x : &y);
	bsp_sync();
	bsp_end();
	return 0;
}
