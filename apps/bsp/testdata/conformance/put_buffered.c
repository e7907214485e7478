/* bsp_put copies its source at the call: changing it afterwards changes
 * nothing.
 * expect: ok */
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int x = 0, v = 7;
	bsp_push_reg(&x, sizeof x);
	bsp_sync();
	bsp_put((s + 1) % p, &v, &x, 0, sizeof v);
	v = 8;
	bsp_sync();
	if (x != 7)
		bsp_abort("process %d: x = %d, want 7", s, x);
	bsp_end();
	return 0;
}
