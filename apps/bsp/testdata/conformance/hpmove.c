/* bsp_hpmove returns pointers into the queue and -1 when it is empty;
 * a tag of size 0 works.
 * expect: ok */
#include <stddef.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	double v = s * 1.5;
	bsp_send((s + 1) % p, NULL, &v, sizeof v);
	bsp_sync();
	void *tag, *payload;
	int n = bsp_hpmove(&tag, &payload);
	if (n != sizeof(double) || *(double *)payload != ((s + p - 1) % p) * 1.5)
		bsp_abort("process %d: hpmove %d", s, n);
	if (bsp_hpmove(&tag, &payload) != -1)
		bsp_abort("process %d: hpmove on an empty queue", s);
	bsp_end();
	return 0;
}
