/* A process that hangs after supersteps the processes may end in shared
 * memory: the error names the superstep it hangs in (the job's timeout
 * is 2 s).
 * timeout: 2
 * procs: 2 4
 * expect: fail process 1 "hung: no BSPlib call for 2s in superstep 6" */
#include <unistd.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	for (int i = 0; i < 6; i++)
		bsp_sync();
	if (bsp_pid() == 1)
		sleep(60);
	bsp_sync();
	bsp_end();
	return 0;
}
