/* Process 0 calls bsp_end while the others call bsp_sync.
 * procs: 2 4 8
 * expect: fail "every process must call the same" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	if (bsp_pid() != 0)
		bsp_sync();
	bsp_end();
	return 0;
}
