/* Process 0 sets a different tag size.
 * procs: 2 4 8
 * expect: fail "bsp_set_tagsize: set the tag size" */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int ts = bsp_pid() == 0 ? 8 : 4;
	bsp_set_tagsize(&ts);
	bsp_sync();
	bsp_end();
	return 0;
}
