/* bsp_begin(1) on any number of processes: one takes part.
 * expect: ok "alone" */
#include <stdio.h>
#include "bsp.h"

int main(void) {
	bsp_begin(1);
	if (bsp_nprocs() != 1 || bsp_pid() != 0)
		bsp_abort("pid %d of %d", bsp_pid(), bsp_nprocs());
	bsp_sync();
	printf("alone\n");
	bsp_end();
	return 0;
}
