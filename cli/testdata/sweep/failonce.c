/* failonce.c: a one-process BSP program for the sweep test: it prints
 * "square k*k" for its argument k, and instance 37 fails on its first run
 * (it leaves a marker beside itself, so its second run succeeds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bsp.h"

int main(int argc, char **argv) {
	bsp_begin(1);
	int k = argc > 1 ? atoi(argv[1]) : 0;
	if (k == 37) {
		char marker[4096];
		snprintf(marker, sizeof marker, "%s.failed-37", argv[0]);
		FILE *f = fopen(marker, "r");
		if (!f) {
			f = fopen(marker, "w");
			if (f)
				fclose(f);
			bsp_abort("instance 37 fails once");
		}
		fclose(f);
	}
	printf("square %d\n", k * k);
	bsp_sync();
	bsp_end();
	return 0;
}
