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
 *
 * When every process of the run shares this host, the worker names a shared
 * file in bsp_begin's answer (apps/bsp/shm_linux.go has its layout). From
 * the second superstep on, bsp_sync first meets the others there (a flag
 * per process, spinning, then yielding, then sleeping): a superstep with no
 * more than puts ends there, each process copying the puts for it straight
 * from the others' put buffers (files beside the shared one, which the puts
 * are recorded into); any other superstep goes on to the worker.
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
#ifdef __linux__
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#define BSP_SHM 1
#endif

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
	int fd;           /* a put buffer in a shared file: its descriptor, or -1 */
	const char *path; /* that file, created at the first growth */
};

/* mapping is this process's view of another's put buffer. */
struct mapping {
	int fd;
	char *p;
	size_t len;
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
	struct buf pops, putbuf[2], *puts, gets, msgs, out;
	int nputs, ngets, nmsgs;
	struct get *getdst;
	int capget;
	int tagsize, nexttag, qtag;
	struct buf in, servein, serveout; /* the worker's frames; the queue points into in */
	struct msg *queue;
	int qhead, qlen;
	uint64_t step;         /* supersteps ended, through the worker or not */
	uint32_t every;        /* the run's checkpoint interval in supersteps, 0: none */
	uint64_t resume;       /* the superstep a restarted run resumes at */
	char *snap;            /* the state to restore at the first bsp_sync, or NULL */
	uint64_t snapn;
	int resumed;
	struct ckbuf {
		char *addr;
		size_t n;
	} *ck;
	int nck;
	char *shm;             /* the shared file, or NULL */
	char *shmpath;
	struct mapping *peers; /* [2*pid + parity] */
} S = {.fd = -1, .puts = &S.putbuf[0], .putbuf = {{.fd = -1}, {.fd = -1}}};

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

static void growshared(struct buf *b, size_t cap);

static void grow(struct buf *b, size_t more) {
	if (b->n + more <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->n + more)
		cap *= 2;
	if (b->path) {
		growshared(b, cap);
		return;
	}
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

static void shmopen(const char *path, size_t n);

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
	char *q = p + 4, *e = p + n;
	if (n >= 24) {
		uint64_t sn;
		memcpy(&S.every, q, 4);
		memcpy(&S.resume, q + 4, 8);
		memcpy(&sn, q + 12, 8);
		q += 20;
		if (sn > (uint64_t)(e - q)) {
			fprintf(stderr, "bsp: process %d: a checkpoint of %llu bytes in a frame of %llu\n", S.pid, (unsigned long long)sn, (unsigned long long)n);
			_exit(3);
		}
		if (sn > 0) {
			S.snap = malloc(sn);
			if (!S.snap)
				_exit(4);
			memcpy(S.snap, q, sn);
			S.snapn = sn;
		}
		q += sn;
	}
	if (q < e)
		shmopen(q, (size_t)(e - q));
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
	add32(S.puts, (uint32_t)pid);
	add32(S.puts, (uint32_t)r);
	add64(S.puts, (uint64_t)offset);
	add32(S.puts, (uint32_t)nbytes);
	add(S.puts, src, (size_t)nbytes);
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

/* The shared file: a 64-byte header, then 256 bytes per process (the
 * layout of apps/bsp/shm_linux.go). The first cache line of a process is
 * read by every process (its arrival at a superstep's barrier, and per
 * parity of the superstep its class and the bytes in its put buffer); the
 * second is its figures, which its worker reads. */
enum {
	SHM_HEAD = 64, SHM_PROC = 256,
	O_ARRIVED = 0, O_CLASS = 8, O_PUTS = 16,
	O_FAST = 64, O_WAITING = 72, O_WAITNS = 80, O_OUT = 88, O_IN = 96, O_HMAX = 104,
};

#ifdef BSP_SHM
static uint64_t *slot(int pid, int off) {
	return (uint64_t *)(void *)(S.shm + SHM_HEAD + (size_t)pid * SHM_PROC + off);
}

static void shmopen(const char *path, size_t n) {
	char *name = malloc(n + 1);
	if (!name)
		fail(S.pid, "bsp_begin", "out of memory");
	memcpy(name, path, n);
	name[n] = 0;
	int fd = open(name, O_RDWR | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < SHM_HEAD + (size_t)S.nprocs * SHM_PROC)
		fail(S.pid, "bsp_begin", "the shared file %s: %s", name, fd < 0 ? strerror(errno) : "too short");
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		fail(S.pid, "bsp_begin", "the shared file %s: %s", name, strerror(errno));
	S.shm = p;
	S.shmpath = name;
	S.peers = calloc(2 * (size_t)S.nprocs, sizeof *S.peers);
	if (!S.peers)
		fail(S.pid, "bsp_begin", "out of memory");
	for (int i = 0; i < 2 * S.nprocs; i++)
		S.peers[i].fd = -1;
	for (int q = 0; q < 2; q++) {
		char *b = malloc(n + 32);
		if (!b)
			fail(S.pid, "bsp_begin", "out of memory");
		snprintf(b, n + 32, "%s.%d.%d", name, S.pid, q);
		S.putbuf[q].path = b;
	}
}

/* growshared grows a put buffer kept in a file the others map. */
static void growshared(struct buf *b, size_t cap) {
	if (cap < (1 << 16))
		cap = 1 << 16;
	if (b->fd < 0) {
		b->fd = open(b->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (b->fd < 0)
			fail(S.pid, "bsp_put", "the put buffer %s: %s", b->path, strerror(errno));
	}
	if (ftruncate(b->fd, (off_t)cap) != 0)
		fail(S.pid, "bsp_put", "the put buffer %s of %zu bytes: %s", b->path, cap, strerror(errno));
	void *p = b->b ? mremap(b->b, b->cap, cap, MREMAP_MAYMOVE)
	               : mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
	if (p == MAP_FAILED)
		fail(S.pid, "bsp_put", "the put buffer %s of %zu bytes: %s", b->path, cap, strerror(errno));
	b->b = p;
	b->cap = cap;
}

static uint64_t nanos(void);

/* backoff waits a little more each time, as MPI libraries wait on a shared
 * node: spinning briefly, then yielding the core (Open MPI's
 * mpi_yield_when_idle) for the first 20 ms of the wait, then sleeping (50
 * µs, 1 ms after 200 ms) so that a process waiting long for the others'
 * computation leaves them the cores. t0 is when the wait began. */
static void backoff(unsigned n, uint64_t t0) {
	if (n < 256) {
#if defined(__x86_64__) || defined(__i386__)
		__asm__ __volatile__("pause");
#endif
		return;
	}
	uint64_t waited = nanos() - t0;
	if (waited < 20000000u) {
		sched_yield();
		return;
	}
	struct timespec d = {0, waited < 200000000u ? 50000 : 1000000};
	nanosleep(&d, NULL);
}

static uint64_t nanos(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* meet is the barrier in the shared file: this process's class (0 an
 * empty superstep, 1 puts only, 2 the worker's) and put bytes, then its
 * arrival; it waits for every process's and returns the largest class. A
 * slot of parity q is written again two supersteps on, after every
 * process arrived at the next barrier, so after it read this one. */
static int meet(int cls) {
	uint64_t s = S.step;
	int q = (int)(s & 1);
	((uint32_t *)(void *)slot(S.pid, O_CLASS))[q] = (uint32_t)cls;
	slot(S.pid, O_PUTS)[q] = S.puts->n;
	__atomic_store_n(slot(S.pid, O_ARRIVED), s + 1, __ATOMIC_RELEASE);
	uint64_t t0 = 0;
	unsigned n = 0;
	for (int j = 0; j < S.nprocs; j++) {
		while (__atomic_load_n(slot(j, O_ARRIVED), __ATOMIC_ACQUIRE) < s + 1) {
			if (!t0) {
				t0 = nanos();
				__atomic_store_n(slot(S.pid, O_WAITING), 1, __ATOMIC_RELAXED);
			}
			backoff(n++, t0);
		}
	}
	if (t0) {
		__atomic_store_n(slot(S.pid, O_WAITING), 0, __ATOMIC_RELAXED);
		__atomic_store_n(slot(S.pid, O_WAITNS), *slot(S.pid, O_WAITNS) + nanos() - t0, __ATOMIC_RELAXED);
	}
	int all = 0;
	for (int j = 0; j < S.nprocs; j++) {
		int c = (int)((uint32_t *)(void *)slot(j, O_CLASS))[q];
		all = c > all ? c : all;
	}
	return all;
}

/* peer maps process src's put buffer of parity q, at least n bytes. */
static const char *peer(int src, int q, uint64_t n) {
	struct mapping *m = &S.peers[2 * src + q];
	if (m->len >= n)
		return m->p;
	if (m->fd < 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s.%d.%d", S.shmpath, src, q);
		m->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (m->fd < 0)
			fail(S.pid, "bsp_sync", "the put buffer %s of process %d: %s", path, src, strerror(errno));
	}
	struct stat st;
	if (fstat(m->fd, &st) != 0 || (uint64_t)st.st_size < n)
		fail(S.pid, "bsp_sync", "the put buffer of process %d is shorter than its %llu bytes of puts", src, (unsigned long long)n);
	if (m->p)
		munmap(m->p, m->len);
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, m->fd, 0);
	if (p == MAP_FAILED)
		fail(S.pid, "bsp_sync", "the put buffer of process %d: %s", src, strerror(errno));
	m->p = p;
	m->len = (size_t)st.st_size;
	return m->p;
}

/* shmputs applies the puts of every process into this one, by source
 * process then call order, straight from their put buffers, and adds the
 * superstep to this process's figures. */
static void shmputs(void) {
	int q = (int)(S.step & 1);
	uint64_t in = 0, out = S.puts->n - 20 * (uint64_t)S.nputs;
	for (int src = 0; src < S.nprocs; src++) {
		uint64_t n = slot(src, O_PUTS)[q];
		if (n == 0)
			continue;
		const char *p = src == S.pid ? S.puts->b : peer(src, q, n), *e = p + n;
		while (p < e) {
			uint32_t pid, r, len;
			uint64_t off;
			if (e - p < 20)
				fail(src, "bsp_put", "a put record cut short");
			memcpy(&pid, p, 4);
			memcpy(&r, p + 4, 4);
			memcpy(&off, p + 8, 8);
			memcpy(&len, p + 16, 4);
			p += 20;
			if ((uint64_t)(e - p) < len)
				fail(src, "bsp_put", "a put record cut short");
			if ((int)pid == S.pid) {
				memcpy(area(src, "bsp_put", r, off, len), p, len);
				in += len;
			}
			p += len;
		}
	}
	uint64_t h = in > out ? in : out;
	__atomic_store_n(slot(S.pid, O_OUT), *slot(S.pid, O_OUT) + out, __ATOMIC_RELAXED);
	__atomic_store_n(slot(S.pid, O_IN), *slot(S.pid, O_IN) + in, __ATOMIC_RELAXED);
	if (h > *slot(S.pid, O_HMAX))
		__atomic_store_n(slot(S.pid, O_HMAX), h, __ATOMIC_RELAXED);
	__atomic_store_n(slot(S.pid, O_FAST), *slot(S.pid, O_FAST) + 1, __ATOMIC_RELEASE);
}

/* shmclose removes this process's put buffers at bsp_end: every process
 * has read them (it met the others at bsp_end's barrier). */
static void shmclose(void) {
	for (int q = 0; q < 2; q++)
		if (S.putbuf[q].fd >= 0)
			unlink(S.putbuf[q].path);
}
#else
static void shmopen(const char *path, size_t n) {
	(void)path;
	(void)n;
}
static void growshared(struct buf *b, size_t cap) {
	(void)b;
	(void)cap;
}
static int meet(int cls) { return cls; }
static void shmputs(void) {}
static void shmclose(void) {}
#endif

/* ended ends the superstep on this side: registrations take effect or
 * go, the records start again, the other put buffer is the next one's. */
static void ended(void) {
	for (int i = 0; i < S.nregs; i++) {
		if (S.regs[i].state == 1)
			S.regs[i].state = 0;
		else if (S.regs[i].state == 2)
			S.regs[i].state = 3;
	}
	S.pushes = 0;
	S.pops.n = S.puts->n = S.gets.n = S.msgs.n = 0;
	S.nputs = S.ngets = S.nmsgs = 0;
	S.step++;
	S.puts = &S.putbuf[S.step & 1];
}

/* throughworker hands the superstep to the worker and applies what it
 * brings back. */
static void throughworker(int end, int snap, const char *call) {
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
	uint32_t kind = K_SYNC, arg = (uint32_t)end | (snap ? 2u : 0u);
	uint64_t n = o->n + S.puts->n;
	memcpy(h, &kind, 4);
	memcpy(h + 4, &arg, 4);
	memcpy(h + 8, &n, 8);
	writeall(h, 16);
	writeall(o->b, o->n);
	if (S.puts->n)
		writeall(S.puts->b, S.puts->n);
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
		return;
	}
}

/* checkpointed saves the checkpoint buffers: the worker keeps them as the
 * checkpoint of the superstep that begins. */
static void checkpointed(void) {
	uint64_t n = 0;
	for (int i = 0; i < S.nck; i++)
		n += S.ck[i].n;
	char h[16];
	uint32_t kind = K_DATA, arg = 0;
	memcpy(h, &kind, 4);
	memcpy(h + 4, &arg, 4);
	memcpy(h + 8, &n, 8);
	writeall(h, 16);
	for (int i = 0; i < S.nck; i++)
		writeall(S.ck[i].addr, S.ck[i].n);
}

/* restored fills the checkpoint buffers from the checkpoint at the end of
 * a restarted run's first superstep. */
static void restored(void) {
	uint64_t n = 0;
	for (int i = 0; i < S.nck; i++)
		n += S.ck[i].n;
	if (n != S.snapn)
		fail(S.pid, "bsp_checkpoint_reg", "registered %llu bytes of state; the checkpoint of superstep %llu holds %llu",
		     (unsigned long long)n, (unsigned long long)S.resume, (unsigned long long)S.snapn);
	const char *p = S.snap;
	for (int i = 0; i < S.nck; i++) {
		memcpy(S.ck[i].addr, p, S.ck[i].n);
		p += S.ck[i].n;
	}
	free(S.snap);
	S.snap = NULL;
	S.resumed = (int)S.resume;
}

void bsp_checkpoint_reg(void *addr, int nbytes) {
	started("bsp_checkpoint_reg");
	if (nbytes < 0)
		fail(S.pid, "bsp_checkpoint_reg", "negative size %d", nbytes);
	struct ckbuf *c = realloc(S.ck, (size_t)(S.nck + 1) * sizeof *S.ck);
	if (!c)
		fail(S.pid, "bsp_checkpoint_reg", "out of memory");
	S.ck = c;
	S.ck[S.nck++] = (struct ckbuf){.addr = addr, .n = (size_t)nbytes};
}

int bsp_resumed(void) {
	started("bsp_resumed");
	return S.resumed;
}

static void superstep(int end, const char *call) {
	started(call);
	/* A superstep that ends at a checkpoint goes to the worker, which
	 * keeps the checkpoint buffers after it (not the first superstep of a
	 * restarted run: that one restores them). */
	int snap = !end && S.every > 0 && S.nck > 0 && !S.snap && (S.step + 1) % S.every == 0;
	/* The first superstep goes to the worker: it checks that every
	 * process asked for as many processes. */
	if (S.shm && S.step > 0) {
		int cls = snap || end || S.pushes || S.pops.n || S.ngets || S.nmsgs || S.nexttag != S.tagsize ? 2 : S.nputs > 0;
		if (meet(cls) < 2) {
			/* Nobody sent a message: the queue is empty now. */
			S.qhead = S.qlen = 0;
			S.qtag = S.tagsize;
			shmputs();
			ended();
			return;
		}
	}
	throughworker(end, snap, call);
	if (snap)
		checkpointed();
	if (S.snap && S.step == 0) {
		restored();
		S.step = S.resume - 1; /* ended counts it */
	}
	ended();
	if (end)
		shmclose();
}

void bsp_sync(void) { superstep(0, "bsp_sync"); }

void bsp_end(void) {
	superstep(1, "bsp_end");
	S.ended = 1;
}
