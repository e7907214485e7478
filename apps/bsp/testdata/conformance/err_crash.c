/* A process that crashes in superstep 1.
 * expect: fail process 0 "crashed (signal: segmentation fault) in superstep 1" */
#include <signal.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	bsp_sync();
	if (bsp_pid() == 0)
		raise(SIGSEGV);
	bsp_sync();
	bsp_end();
	return 0;
}
