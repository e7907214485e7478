/* BSMP: bsp_set_tagsize returns the previous size and takes effect at the
 * next superstep; messages arrive at bsp_sync; bsp_qsize, bsp_get_tag
 * (status -1 when empty), bsp_move (truncating to the room given).
 * expect: ok */
#include <string.h>
#include "bsp.h"

int main(void) {
	bsp_begin(bsp_nprocs());
	int p = bsp_nprocs(), s = bsp_pid();
	int ts = sizeof(int);
	bsp_set_tagsize(&ts);
	if (ts != 0)
		bsp_abort("process %d: previous tag size %d, want 0", s, ts);
	bsp_sync();
	for (int t = 0; t < p; t++) {
		char text[16] = "abcdefgh";
		bsp_send(t, &s, text, 8);
	}
	int n, bytes;
	bsp_qsize(&n, &bytes);
	if (n != 0)
		bsp_abort("process %d: %d messages before bsp_sync", s, n);
	bsp_sync();
	bsp_qsize(&n, &bytes);
	if (n != p || bytes != 8 * p)
		bsp_abort("process %d: qsize %d, %d bytes; want %d, %d", s, n, bytes, p, 8 * p);
	int seen = 0;
	for (int k = 0; k < p; k++) {
		int status, tag;
		bsp_get_tag(&status, &tag);
		if (status != 8 || tag < 0 || tag >= p)
			bsp_abort("process %d: status %d, tag %d", s, status, tag);
		char got[4];
		bsp_move(got, 4);
		if (memcmp(got, "abcd", 4) != 0)
			bsp_abort("process %d: payload", s);
		seen |= 1 << tag;
	}
	int status;
	bsp_get_tag(&status, &ts);
	if (status != -1 || seen != (1 << p) - 1)
		bsp_abort("process %d: status %d on an empty queue, seen %#x", s, status, seen);
	bsp_sync();
	bsp_qsize(&n, &bytes);
	if (n != 0)
		bsp_abort("process %d: the queue kept %d messages across bsp_sync", s, n);
	bsp_end();
	return 0;
}
