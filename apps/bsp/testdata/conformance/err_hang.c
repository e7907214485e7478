/* A process that hangs in superstep 1 (the job's timeout is 2 s).
 * timeout: 2
 * expect: fail process 0 "hung: no BSPlib call for 2s in superstep 1" */
#include <unistd.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	bsp_sync();
	if (bsp_pid() == 0)
		sleep(60);
	bsp_sync();
	bsp_end();
	return 0;
}
