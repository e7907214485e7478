/*
 * bsp.c: BSPlib (bsp.h) over a gridtui worker. The worker starts this
 * process with its end of a Unix socket pair as file descriptor BSP_FD and
 * BSP_PID, BSP_NPROCS in the environment. Calls that need nobody else
 * (registrations, puts, gets, sends, the queue) are recorded here; bsp_sync
 * hands the superstep to the worker in one frame, serves the other
 * processes' gets from this memory when the worker asks (before any put),
 * then applies what the worker brings back: the data of the gets, the puts
 * of every process into this memory, the messages of the queue.
 *
 * Frames both ways: kind u32, arg u32, length u64 (little-endian, as the
 * hosts gridtui runs on), then the payload. apps/bsp/wire.go is the other side.
 */
#define _GNU_SOURCE
#include "bsp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum {
	K_BEGIN = 1, K_SYNC = 2, K_DATA = 3, K_ABORT = 4,
	K_STARTED = 16, K_SERVE = 17, K_DONE = 18,
};

struct reg {
	const char *addr;
	size_t size;
	int state; /* 0 in effect, 1 pushed in this superstep, 2 popped in this superstep, 3 gone */
};

struct buf {
	char *b;
	size_t n, cap;
};

struct get {
	char *dst;
	int len;
};

struct msg {
	char *tag;
	char *payload;
	int len;
};

static struct {
	int fd, pid, nprocs, avail, begun, ended;
	struct timespec t0;
	struct reg *regs;
	int nregs, capregs, pushes;
	struct buf pops, puts, gets, msgs, out;
	int nputs, ngets, nmsgs;
	struct get *getdst;
	int capget;
	int tagsize, nexttag, qtag;
	struct buf in, servein, serveout; /* the worker's frames; the queue points into in */
	struct msg *queue;
	int qhead, qlen;
} S = {.fd = -1};

/* fail sends the worker a broken rule (pid: the process that broke it)
 * and exits. */
static void fail(int pid, const char *call, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void writeall(const void *p, size_t n) {
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(S.fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3); /* the worker is gone: so is the run */
		c += k;
		n -= (size_t)k;
	}
}

static void readall(void *p, size_t n) {
	char *c = p;
	while (n > 0) {
		ssize_t k = read(S.fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			_exit(3);
		c += k;
		n -= (size_t)k;
	}
}

static void frame(uint32_t kind, uint32_t arg, const void *p, uint64_t n) {
	char h[16];
	memcpy(h, &kind, 4);
	memcpy(h + 4, &arg, 4);
	memcpy(h + 8, &n, 8);
	writeall(h, 16);
	if (n > 0)
		writeall(p, n);
}

/* await reads the worker's next frame of the given kind; its payload is
 * malloc'd. */
static char *await(uint32_t want, uint32_t *arg, uint64_t *n) {
	char h[16];
	uint32_t kind;
	readall(h, 16);
	memcpy(&kind, h, 4);
	memcpy(arg, h + 4, 4);
	memcpy(n, h + 8, 8);
	if (kind != want) {
		fprintf(stderr, "bsp: process %d: the worker sent frame kind %u, expected %u\n", S.pid, kind, want);
		_exit(3);
	}
	char *p = malloc(*n ? *n : 1);
	if (!p)
		_exit(4);
	readall(p, *n);
	return p;
}

static void environment(void);

static void fail(int pid, const char *call, const char *fmt, ...) {
	char text[1024];
	environment();
	if (pid < 0)
		pid = S.pid;
	va_list ap;
	va_start(ap, fmt);
	int n = snprintf(text, sizeof text, "%s", call);
	text[n++] = '\n';
	vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
	va_end(ap);
	if (S.fd < 0) {
		fprintf(stderr, "bsp: process %d: %s\n", pid, text);
		exit(1);
	}
	frame(K_ABORT, (uint32_t)pid + 1, text, strlen(text));
	exit(1);
}

static void grow(struct buf *b, size_t more) {
	if (b->n + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more)
		cap *= 2;
	char *p = realloc(b->b, cap);
	if (!p)
		fail(S.pid, "bsp_sync", "out of memory (%zu bytes)", cap);
	b->b = p;
	b->cap = cap;
}

static void add(struct buf *b, const void *p, size_t n) {
	grow(b, n);
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void add32(struct buf *b, uint32_t v) { add(b, &v, 4); }
static void add64(struct buf *b, uint64_t v) { add(b, &v, 8); }

static void started(const char *call) {
	if (!S.begun)
		fail(-1, call, "called before bsp_begin");
	if (S.ended)
		fail(S.pid, call, "called after bsp_end");
}

static void environment(void) {
	if (S.fd >= 0)
		return;
	const char *fd = getenv("BSP_FD"), *pid = getenv("BSP_PID"), *np = getenv("BSP_NPROCS");
	if (!fd || !pid || !np) {
		fprintf(stderr, "bsp: this program runs under gridtui: gridtui run --app bsp --param program=...\n");
		exit(2);
	}
	S.fd = atoi(fd);
	S.pid = atoi(pid);
	S.avail = atoi(np);
}

void bsp_init(void (*spmd)(void), int argc, char **argv) {
	(void)argc;
	(void)argv;
	environment();
	if (S.pid != 0) {
		spmd();
		exit(0);
	}
}

void bsp_begin(int maxprocs) {
	environment();
	if (S.begun)
		fail(S.pid, "bsp_begin", "called a second time");
	if (maxprocs < 1)
		fail(S.pid, "bsp_begin", "asked for %d processes", maxprocs);
	uint32_t arg;
	uint64_t n;
	frame(K_BEGIN, (uint32_t)maxprocs, NULL, 0);
	char *p = await(K_STARTED, &arg, &n);
	if (arg != 0)
		exit(0); /* beyond maxprocs: this process takes no part */
	memcpy(&S.nprocs, p, 4);
	free(p);
	S.begun = 1;
	clock_gettime(CLOCK_MONOTONIC, &S.t0);
}

int bsp_nprocs(void) {
	if (!S.begun) {
		environment();
		return S.avail;
	}
	return S.nprocs;
}

int bsp_pid(void) {
	started("bsp_pid");
	return S.pid;
}

double bsp_time(void) {
	struct timespec t;
	started("bsp_time");
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - S.t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - S.t0.tv_nsec);
}

void bsp_abort(const char *format, ...) {
	char text[1024];
	va_list ap;
	va_start(ap, format);
	vsnprintf(text, sizeof text, format, ap);
	va_end(ap);
	environment();
	frame(K_ABORT, 0, text, strlen(text));
	exit(1);
}

void bsp_push_reg(const void *ident, int size) {
	started("bsp_push_reg");
	if (size < 0)
		fail(S.pid, "bsp_push_reg", "negative size %d", size);
	if (S.nregs == S.capregs) {
		S.capregs = S.capregs ? 2 * S.capregs : 16;
		S.regs = realloc(S.regs, (size_t)S.capregs * sizeof *S.regs);
		if (!S.regs)
			fail(S.pid, "bsp_push_reg", "out of memory");
	}
	S.regs[S.nregs++] = (struct reg){.addr = ident, .size = (size_t)size, .state = 1};
	S.pushes++;
}

/* lookup returns the registration of ident in effect in this superstep
 * (the latest one), or fails the call. */
static int lookup(const char *call, const void *ident) {
	int pending = 0;
	for (int i = S.nregs - 1; i >= 0; i--) {
		if (S.regs[i].addr != ident)
			continue;
		if (S.regs[i].state == 0 || S.regs[i].state == 2)
			return i;
		if (S.regs[i].state == 1)
			pending = 1;
	}
	if (pending)
		fail(S.pid, call, "the area %p was registered in this superstep; a registration takes effect at the next bsp_sync", ident);
	fail(S.pid, call, "the area %p is not registered (bsp_push_reg)", ident);
}

void bsp_pop_reg(const void *ident) {
	started("bsp_pop_reg");
	int i = lookup("bsp_pop_reg", ident);
	if (S.regs[i].state == 2)
		fail(S.pid, "bsp_pop_reg", "the area %p was already removed in this superstep", ident);
	S.regs[i].state = 2;
	add32(&S.pops, (uint32_t)i);
}

static void checkpid(const char *call, int pid, int nbytes) {
	if (pid < 0 || pid >= S.nprocs)
		fail(S.pid, call, "process %d does not exist (bsp_nprocs() = %d)", pid, S.nprocs);
	if (nbytes < 0)
		fail(S.pid, call, "negative size %d", nbytes);
}

void bsp_put(int pid, const void *src, void *dst, int offset, int nbytes) {
	started("bsp_put");
	checkpid("bsp_put", pid, nbytes);
	int r = lookup("bsp_put", dst);
	if (offset < 0)
		fail(S.pid, "bsp_put", "negative offset %d", offset);
	add32(&S.puts, (uint32_t)pid);
	add32(&S.puts, (uint32_t)r);
	add64(&S.puts, (uint64_t)offset);
	add32(&S.puts, (uint32_t)nbytes);
	add(&S.puts, src, (size_t)nbytes);
	S.nputs++;
}

/* bsp_hpput copies too: a copy at the call is one of the behaviours the
 * standard allows, and it is the cost of the frame to the worker anyway. */
void bsp_hpput(int pid, const void *src, void *dst, int offset, int nbytes) {
	bsp_put(pid, src, dst, offset, nbytes);
}

void bsp_get(int pid, const void *src, int offset, void *dst, int nbytes) {
	started("bsp_get");
	checkpid("bsp_get", pid, nbytes);
	int r = lookup("bsp_get", src);
	if (offset < 0)
		fail(S.pid, "bsp_get", "negative offset %d", offset);
	add32(&S.gets, (uint32_t)pid);
	add32(&S.gets, (uint32_t)r);
	add64(&S.gets, (uint64_t)offset);
	add32(&S.gets, (uint32_t)nbytes);
	if (S.ngets == S.capget) {
		S.capget = S.capget ? 2 * S.capget : 16;
		S.getdst = realloc(S.getdst, (size_t)S.capget * sizeof *S.getdst);
		if (!S.getdst)
			fail(S.pid, "bsp_get", "out of memory");
	}
	S.getdst[S.ngets++] = (struct get){.dst = dst, .len = nbytes};
}

void bsp_hpget(int pid, const void *src, int offset, void *dst, int nbytes) {
	bsp_get(pid, src, offset, dst, nbytes);
}

void bsp_set_tagsize(int *tag_nbytes) {
	started("bsp_set_tagsize");
	if (*tag_nbytes < 0)
		fail(S.pid, "bsp_set_tagsize", "negative tag size %d", *tag_nbytes);
	int prev = S.nexttag;
	S.nexttag = *tag_nbytes;
	*tag_nbytes = prev;
}

void bsp_send(int pid, const void *tag, const void *payload, int payload_nbytes) {
	started("bsp_send");
	checkpid("bsp_send", pid, payload_nbytes);
	add32(&S.msgs, (uint32_t)pid);
	add32(&S.msgs, (uint32_t)payload_nbytes);
	add(&S.msgs, tag, (size_t)S.tagsize);
	add(&S.msgs, payload, (size_t)payload_nbytes);
	S.nmsgs++;
}

void bsp_qsize(int *nmessages, int *accum_nbytes) {
	started("bsp_qsize");
	int bytes = 0;
	for (int i = S.qhead; i < S.qlen; i++)
		bytes += S.queue[i].len;
	*nmessages = S.qlen - S.qhead;
	if (accum_nbytes)
		*accum_nbytes = bytes;
}

void bsp_get_tag(int *status, void *tag) {
	started("bsp_get_tag");
	if (S.qhead == S.qlen) {
		*status = -1;
		return;
	}
	*status = S.queue[S.qhead].len;
	memcpy(tag, S.queue[S.qhead].tag, (size_t)S.qtag);
}

void bsp_move(void *payload, int reserved_nbytes) {
	started("bsp_move");
	if (S.qhead == S.qlen)
		fail(S.pid, "bsp_move", "the message queue is empty");
	struct msg *m = &S.queue[S.qhead++];
	int n = m->len < reserved_nbytes ? m->len : reserved_nbytes;
	if (n > 0)
		memcpy(payload, m->payload, (size_t)n);
}

int bsp_hpmove(void **tag_ptr_buf, void **payload_ptr_buf) {
	started("bsp_hpmove");
	if (S.qhead == S.qlen)
		return -1;
	struct msg *m = &S.queue[S.qhead++];
	*tag_ptr_buf = m->tag;
	*payload_ptr_buf = m->payload;
	return m->len;
}

/* area returns the bytes [off, off+n) of registration r, for a put or get
 * of process pid, or fails naming that process. */
static char *area(int pid, const char *call, uint32_t r, uint64_t off, uint32_t n) {
	if ((int)r >= S.nregs || S.regs[r].state == 3)
		fail(pid, call, "registration %u does not exist on process %d", r, S.pid);
	if (off + n > S.regs[r].size)
		fail(pid, call, "bytes %llu…%llu are outside the %zu bytes process %d registered",
		     (unsigned long long)off, (unsigned long long)(off + n), S.regs[r].size, S.pid);
	return (char *)S.regs[r].addr + off;
}

/* serve answers the worker's SERVE frame with the data of the gets. */
static void serve(char *p, uint64_t n) {
	uint32_t k;
	struct buf *out = &S.serveout;
	out->n = 0;
	memcpy(&k, p, 4);
	p += 4;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t pid, r, len;
		uint64_t off;
		memcpy(&pid, p, 4);
		memcpy(&r, p + 4, 4);
		memcpy(&off, p + 8, 8);
		memcpy(&len, p + 16, 4);
		p += 20;
		add(out, area((int)pid, "bsp_get", r, off, len), len);
	}
	(void)n;
	frame(K_DATA, 0, out->b, out->n);
}

/* deliver applies a DONE frame: gets, then puts, then the queue. */
static void deliver(char *p) {
	for (int i = 0; i < S.ngets; i++) {
		memcpy(S.getdst[i].dst, p, (size_t)S.getdst[i].len);
		p += S.getdst[i].len;
	}
	uint32_t k;
	memcpy(&k, p, 4);
	p += 4;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t src, r, len;
		uint64_t off;
		memcpy(&src, p, 4);
		memcpy(&r, p + 4, 4);
		memcpy(&off, p + 8, 8);
		memcpy(&len, p + 16, 4);
		p += 20;
		memcpy(area((int)src, "bsp_put", r, off, len), p, len);
		p += len;
	}
	memcpy(&k, p, 4);
	p += 4;
	S.queue = realloc(S.queue, (k ? k : 1) * sizeof *S.queue);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t len;
		memcpy(&len, p + 4, 4);
		S.queue[i] = (struct msg){.tag = p + 8, .payload = p + 8 + S.qtag, .len = (int)len};
		p += 8 + S.qtag + len;
	}
	S.qhead = 0;
	S.qlen = (int)k;
}

static void superstep(int end, const char *call) {
	started(call);
	struct buf *o = &S.out;
	o->n = 0;
	add32(o, (uint32_t)S.pushes);
	add32(o, (uint32_t)(S.pops.n / 4));
	add32(o, (uint32_t)S.nexttag);
	add32(o, (uint32_t)S.tagsize);
	add32(o, (uint32_t)S.nputs);
	add32(o, (uint32_t)S.ngets);
	add32(o, (uint32_t)S.nmsgs);
	add(o, S.pops.b, S.pops.n);
	add(o, S.gets.b, S.gets.n);
	add(o, S.msgs.b, S.msgs.n);
	char h[16];
	uint32_t kind = K_SYNC, arg = (uint32_t)end;
	uint64_t n = o->n + S.puts.n;
	memcpy(h, &kind, 4);
	memcpy(h + 4, &arg, 4);
	memcpy(h + 8, &n, 8);
	writeall(h, 16);
	writeall(o->b, o->n);
	if (S.puts.n)
		writeall(S.puts.b, S.puts.n);
	for (;;) {
		char rh[16];
		readall(rh, 16);
		memcpy(&kind, rh, 4);
		memcpy(&n, rh + 8, 8);
		/* One buffer for the frames of every superstep: the queue of the
		 * last one, which points into it, ends here. */
		struct buf *in = kind == K_SERVE ? &S.servein : &S.in;
		in->n = 0;
		grow(in, n + 1);
		char *p = in->b;
		readall(p, n);
		if (kind == K_SERVE) {
			serve(p, n);
			continue;
		}
		if (kind != K_DONE) {
			fprintf(stderr, "bsp: process %d: the worker sent frame kind %u in %s\n", S.pid, kind, call);
			_exit(3);
		}
		/* The queue holds messages sent with this superstep's tag
		 * size; the next superstep sends with the one set now. */
		S.qtag = S.tagsize;
		deliver(p);
		S.tagsize = S.nexttag;
		break;
	}
	for (int i = 0; i < S.nregs; i++) {
		if (S.regs[i].state == 1)
			S.regs[i].state = 0;
		else if (S.regs[i].state == 2)
			S.regs[i].state = 3;
	}
	S.pushes = 0;
	S.pops.n = S.puts.n = S.gets.n = S.msgs.n = 0;
	S.nputs = S.ngets = S.nmsgs = 0;
}

void bsp_sync(void) { superstep(0, "bsp_sync"); }

void bsp_end(void) {
	superstep(1, "bsp_end");
	S.ended = 1;
}
