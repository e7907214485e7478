/* bsp_set_tagsize takes effect at the next superstep: messages sent in the
 * superstep of the call still carry the old tag size, those sent after it
 * the new one.
 * expect: ok */
#include <string.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int ts = 4;
	bsp_set_tagsize(&ts);
	int v = s;
	bsp_send((s + 1) % p, NULL, &v, sizeof v); /* tag size 0 still */
	bsp_sync();
	int status, tag = -7;
	bsp_get_tag(&status, &tag);
	if (status != sizeof v || tag != -7)
		bsp_abort("process %d: status %d, tag %d: the tag was not of size 0", s, status, tag);
	int t = 1000 + s;
	bsp_send((s + 1) % p, &t, &v, sizeof v); /* tag size 4 now */
	bsp_sync();
	bsp_get_tag(&status, &tag);
	if (status != sizeof v || tag != 1000 + (s + p - 1) % p)
		bsp_abort("process %d: status %d, tag %d, want %d", s, status, tag, 1000 + (s + p - 1) % p);
	bsp_end();
	return 0;
}
