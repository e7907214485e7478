/* bsp_move on an empty queue.
 * expect: fail process 0 "bsp_move: the message queue is empty" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int v;
	bsp_sync();
	if (bsp_pid() == 0)
		bsp_move(&v, sizeof v);
	bsp_sync();
	bsp_end();
	return 0;
}
