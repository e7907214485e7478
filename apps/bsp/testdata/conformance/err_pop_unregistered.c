/* bsp_pop_reg of memory never registered.
 * expect: fail process 0 "bsp_pop_reg: the area" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int x;
	if (bsp_pid() == 0)
		bsp_pop_reg(&x);
	bsp_sync();
	bsp_end();
	return 0;
}
