/*
 * gridhpc.c - the program's side of gridtui's exec protocol (see gridhpc.h
 * and apps/exec/wire.go). Plain C99 and POSIX, and glibc's <ucontext.h> for
 * link = "inprocess" (link -ldl with a glibc older than 2.34).
 *
 * link = "inprocess" (gridhpc_inproc.h): the calls that wait for the
 * environment switch to libgridhpc_inproc.so's coroutine instead of
 * speaking to the worker; everything else is shared.
 *
 * Frame: kind (u8), flags (u8), 2 reserved bytes, arg (i32), payload length
 * (u64), little-endian, then the payload. The messages themselves move
 * through the shared window: for neighbour i, its send buffer then its
 * receive buffer, halo_size[i] bytes each. One frame goes each way per
 * iteration: GRID_Iterate's σ with which neighbours were sent to, and the
 * worker's go with which halos are new.
 */
#include "gridhpc.h"
#include "gridhpc_inproc.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { K_HELLO = 1, K_SEND, K_RECEIVE, K_WAIT, K_ITERATE, K_RESULT, K_ABORT, K_CKREG = 12, K_CKDATA, K_REPLY = 16 };
/* Statuses of a reply beyond go (0) and stop (1): take a checkpoint, restore one. */
enum { R_CHECKPOINT = 2, R_RESTORE = 3 };
enum { S_RUN = 1, S_STOPPED, S_DONE, S_BROKEN };
#define PROTOCOL 1
#define HDR 16

/* lib is the library's state behind GRIDSubtask.priv. */
struct lib {
	int fd, state;
	int go;               /* the worker said go for this iteration */
	uint64_t spin;        /* ns to poll for the worker's go before blocking (GRIDHPC_SPIN_NS) */
	unsigned skip, backoff; /* turns to block at once after polls that found nothing */
	char *kv;             /* the params string */
	char *win;            /* the shared window */
	size_t winsize;
	unsigned char *fresh; /* per neighbour: new values since the last receive */
	unsigned char *sent;  /* per neighbour: sent in this turn (σ + these go with the next frame) */
	unsigned char *frame; /* 8 bytes of σ, then sent */
	struct gh_inproc *in; /* link = "inprocess": the library's coroutine, else NULL */
	void *stack;          /* its stack */
	struct ckbuf { void *addr; size_t n; } *ck; /* GRID_CheckpointRegister's buffers */
	int nck;
	uint64_t ckbytes;     /* their bytes */
	int begun;            /* the first receive was asked for: no more registrations */
	uint64_t resumed;     /* the iteration the buffers were restored at (0: none) */
};
#define L(s) ((struct lib *)(s)->priv)

static void put32(unsigned char *b, uint32_t v) { for (int i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8 * i)); }
static void put64(unsigned char *b, uint64_t v) { for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i)); }
static uint32_t get32(const unsigned char *b) { uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | b[i]; return v; }
static uint64_t get64(const unsigned char *b) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | b[i]; return v; }

/* sendv writes a header and its payload in one call (no SIGPIPE). */
static int sendv(struct lib *l, int kind, int flags, int32_t arg, const void *a, size_t na)
{
	unsigned char h[HDR];
	h[0] = (unsigned char)kind; h[1] = (unsigned char)flags; h[2] = h[3] = 0;
	put32(h + 4, (uint32_t)arg);
	put64(h + 8, (uint64_t)na);
	struct iovec iov[2] = {{h, HDR}, {(void *)a, na}};
	struct msghdr m = {0};
	m.msg_iov = iov;
	m.msg_iovlen = na ? 2 : 1;
	while (m.msg_iovlen > 0) {
		ssize_t n = sendmsg(l->fd, &m, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR) continue;
			l->state = S_BROKEN;
			return GRID_EIO;
		}
		while (m.msg_iovlen > 0 && (size_t)n >= m.msg_iov[0].iov_len) {
			n -= (ssize_t)m.msg_iov[0].iov_len;
			m.msg_iov++;
			m.msg_iovlen--;
		}
		if (m.msg_iovlen > 0) {
			m.msg_iov[0].iov_base = (char *)m.msg_iov[0].iov_base + n;
			m.msg_iov[0].iov_len -= (size_t)n;
		}
	}
	return GRID_OK;
}

/* sendall writes n bytes (no SIGPIPE). */
static int sendall(struct lib *l, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t r = send(l->fd, p, n, MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) {
			l->state = S_BROKEN;
			return GRID_EIO;
		}
		p += r;
		n -= (size_t)r;
	}
	return GRID_OK;
}

static int readn(struct lib *l, void *buf, size_t n)
{
	char *p = buf;
	while (n > 0) {
		ssize_t r = read(l->fd, p, n);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) {
			l->state = S_BROKEN;
			return GRID_EIO;
		}
		p += r;
		n -= (size_t)r;
	}
	return GRID_OK;
}

static uint64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* spinwait waits up to l->spin ns for the worker's answer by polling the
 * socket, yielding the CPU between polls, before reply's read blocks: an
 * answer that comes within it costs no sleep and wake-up of the process.
 * A poll that found nothing makes the next turns block at once, 1, 2, 4
 * ... 64 of them in a row: on a host where the answer is slow (a busy
 * CPU, a long exchange) the program stops polling. */
static void spinwait(struct lib *l)
{
	if (!l->spin) return;
	if (l->skip) {
		l->skip--;
		return;
	}
	uint64_t end = now() + l->spin;
	char c;
	do {
		ssize_t n = recv(l->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			l->backoff = 0;
			return;
		}
		sched_yield();
	} while (now() < end);
	l->backoff = l->backoff ? (l->backoff < 64 ? 2 * l->backoff : 64) : 1;
	l->skip = l->backoff;
}

/* reply reads the worker's answer: its status, and up to max payload bytes
 * into buf (*len gets the payload's length). A short answer (a go with one
 * byte per neighbour) comes in one read with its header. */
static int reply(struct lib *l, void *buf, size_t max, size_t *len)
{
	unsigned char b[HDR + 64];
	size_t want = HDR + (max < sizeof b - HDR ? max : 0), got = 0;
	while (got < HDR) {
		ssize_t r = read(l->fd, b + got, want - got);
		if (r < 0 && errno == EINTR) continue;
		if (r <= 0) {
			l->state = S_BROKEN;
			return GRID_EIO;
		}
		got += (size_t)r;
	}
	uint64_t n = get64(b + 8);
	if (b[0] != K_REPLY || n > max || got > HDR + n) {
		l->state = S_BROKEN;
		return GRID_EPROTO;
	}
	if (got > HDR) memcpy(buf, b + HDR, got - HDR);
	int rc;
	if (n > got - HDR && (rc = readn(l, (char *)buf + (got - HDR), (size_t)n - (got - HDR)))) return rc;
	if (len) *len = (size_t)n;
	return (int32_t)get32(b + 4);
}

/* turn hands the turn to the in-process library with the request call and
 * returns its answer: 0 go on, 1 stop, or a negative code. */
static int turn(struct lib *l, int call)
{
	struct gh_inproc *in = l->in;
	if (in->done) return in->status < 0 ? in->status : GRID_EFAILED;
	in->call = call;
	swapcontext(&in->prog, &in->lib);
	return in->status;
}

/* fail tells the worker why a call broke the rules (the run fails with
 * it), and returns code. */
static int fail(GRIDSubtask *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(GRIDSubtask *s, int code, const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (n < 0) n = 0;
	if ((size_t)n >= sizeof why) n = sizeof why - 1;
	if (L(s)->state != S_BROKEN) {
		if (L(s)->in) {
			L(s)->in->rule = 1;
			L(s)->in->reason = why;
			turn(L(s), GH_ABORT);
		} else
			sendv(L(s), K_ABORT, 1, 0, why, (size_t)n);
	}
	L(s)->state = S_BROKEN;
	return code;
}

static int neighbour(GRIDSubtask *s, uint32_t rank)
{
	for (uint32_t i = 0; i < s->nneighbours; i++)
		if (s->neighbours[i] == rank) return (int)i;
	return -1;
}

/* envfd reads a file descriptor number from the environment. */
static int envfd(const char *name)
{
	const char *env = getenv(name);
	char *end;
	if (!env || !*env) return -1;
	long fd = strtol(env, &end, 10);
	return *end || fd < 0 ? -1 : (int)fd;
}

/* subtask decodes the worker's answer to the hello (apps/exec/wire.go). */
static int subtask(GRIDSubtask *s, const unsigned char *b, size_t n)
{
	if (n < 56) return GRID_EPROTO;
	s->rank = get32(b), s->ranks = get32(b + 4), s->cores = get32(b + 8), s->nneighbours = get32(b + 12);
	s->lo = get64(b + 16), s->hi = get64(b + 24), s->unit = get64(b + 32), s->result_size = get64(b + 40);
	uint64_t e = get64(b + 48);
	memcpy(&s->eps, &e, 8);
	size_t off = 56 + 16 * (size_t)s->nneighbours;
	if (s->nneighbours > 1 << 20 || off >= n || b[n - 1] != 0) return GRID_EPROTO;
	s->neighbours = calloc(s->nneighbours + 1, 8);
	s->halo_size = calloc(s->nneighbours + 1, 8);
	L(s)->fresh = calloc(s->nneighbours + 1, 1);
	L(s)->frame = calloc(s->nneighbours + 8, 1);
	L(s)->sent = L(s)->frame ? L(s)->frame + 8 : NULL;
	L(s)->kv = malloc(n - off);
	if (!s->neighbours || !s->halo_size || !L(s)->fresh || !L(s)->frame || !L(s)->kv) return GRID_EIO;
	for (uint32_t i = 0; i < s->nneighbours; i++) {
		s->neighbours[i] = get64(b + 56 + 16 * i);
		s->halo_size[i] = get64(b + 64 + 16 * i);
		L(s)->winsize += 2 * s->halo_size[i];
	}
	memcpy(L(s)->kv, b + off, n - off);
	s->params = L(s)->kv;
	return GRID_OK;
}

/* INPROC_STACK is the size of the in-process library's stack: the Go
 * runtime's system stack for the program's thread (Go code itself runs on
 * stacks of its own). */
#define INPROC_STACK (1 << 20)

static struct gh_inproc *inproc_cur;
static gh_serve_fn inproc_serve;

/* inproc_main is the library's coroutine: it runs the node until the run
 * is over for this program, then the program's context resumes (uc_link). */
static void inproc_main(void)
{
	struct gh_inproc *in = inproc_cur;
	in->status = inproc_serve(in);
	in->done = 1;
}

/* inproc_fault is the handler of a fault in the program's own code once
 * the Go runtime is loaded: the runtime forwards the faults of code that
 * is not Go's to the handler it found (a fault in its own code is its
 * own), and this one restores the default action, so that the fault kills
 * the program with its signal as it would without the library. */
static void inproc_fault(int sig)
{
	signal(sig, SIG_DFL);
}

static void inproc_faults(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = inproc_fault;
		sa.sa_flags = SA_ONSTACK;
		sigaction(sigs[i], &sa, NULL);
	}
}

/* inproc_fail tells the worker why the in-process library cannot run
 * (instead of the hello: the run fails with it) and on stderr. */
static int inproc_fail(struct lib *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int inproc_fail(struct lib *l, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (n < 0) n = 0;
	if ((size_t)n >= sizeof why) n = sizeof why - 1;
	fprintf(stderr, "gridhpc: link = \"inprocess\": %s\n", why);
	sendv(l, K_ABORT, 1, 0, why, (size_t)n);
	return GRID_ELIB;
}

/* inproc_init loads the in-process library (GRIDHPC_INPROCESS_LIB), starts
 * its coroutine, and takes the sub-task it hands over once the node is
 * linked to its neighbours. */
static int inproc_init(GRIDSubtask *s, struct lib *l)
{
	const char *path = getenv("GRIDHPC_INPROCESS_LIB");
	if (!path || !*path) return inproc_fail(l, "GRIDHPC_INPROCESS_LIB is not set");
	if (inproc_cur) return inproc_fail(l, "GRID_Init called twice");
	inproc_faults();
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) return inproc_fail(l, "cannot load %s", dlerror());
	*(void **)&inproc_serve = dlsym(dl, "gridhpc_serve");
	if (!inproc_serve) return inproc_fail(l, "%s has no gridhpc_serve: is it libgridhpc_inproc.so?", path);
	struct gh_inproc *in = calloc(1, sizeof *in);
	void *stack = mmap(NULL, INPROC_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (!in || stack == MAP_FAILED) {
		free(in);
		return GRID_EIO;
	}
	l->in = in, l->stack = stack, inproc_cur = in;
	in->version = GH_INPROC_VERSION;
	in->fd = l->fd;
	l->fd = -1; /* the library owns the socket */
	getcontext(&in->lib);
	in->lib.uc_stack.ss_sp = stack;
	in->lib.uc_stack.ss_size = INPROC_STACK;
	in->lib.uc_link = &in->prog;
	makecontext(&in->lib, inproc_main, 0);
	swapcontext(&in->prog, &in->lib);
	if (in->done || in->status != GRID_OK || !in->subtask) return in->status < 0 ? in->status : GRID_EPROTO;
	int rc = subtask(s, in->subtask, (size_t)in->subtask_len);
	free(in->subtask);
	in->subtask = NULL;
	if (rc != GRID_OK) return rc;
	if (l->winsize && !(l->win = calloc(1, l->winsize))) return GRID_EIO;
	in->win = l->win, in->winsize = l->winsize;
	in->sent = l->sent, in->fresh = l->fresh, in->nneighbours = s->nneighbours;
	l->state = S_RUN;
	return GRID_OK;
}

int GRID_Init(GRIDSubtask *s)
{
	memset(s, 0, sizeof *s);
	s->params = "";
	struct lib *l = calloc(1, sizeof *l);
	if (!l) return GRID_EIO;
	s->priv = l;
	l->state = S_BROKEN;
	if ((l->fd = envfd("GRIDHPC_FD")) < 0) return GRID_ENOENV;
	const char *link = getenv("GRIDHPC_LINK");
	if (link && strcmp(link, "inprocess") == 0) return inproc_init(s, l);
	int shm = envfd("GRIDHPC_SHM_FD");
	if (shm < 0) return GRID_ENOENV;
	const char *spin = getenv("GRIDHPC_SPIN_NS");
	if (spin) l->spin = strtoull(spin, NULL, 10);
	unsigned char v[4];
	put32(v, PROTOCOL);
	int rc = sendv(l, K_HELLO, 0, 0, v, 4);
	if (rc) return rc;
	size_t cap = 1 << 20, n = 0;
	unsigned char *b = malloc(cap);
	if (!b) return GRID_EIO;
	rc = reply(l, b, cap, &n);
	if (rc == GRID_OK) rc = subtask(s, b, n);
	free(b);
	if (rc != GRID_OK) return rc < 0 ? rc : GRID_EPROTO;
	if (l->winsize) {
		void *w = mmap(NULL, l->winsize, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
		if (w == MAP_FAILED) return GRID_EIO;
		l->win = w;
	}
	close(shm);
	l->state = S_RUN;
	return GRID_OK;
}

/* buffer returns neighbour i's send (0) or receive (1) buffer. */
static char *buffer(GRIDSubtask *s, int i, int in)
{
	char *p = L(s)->win;
	for (int j = 0; j < i; j++) p += 2 * s->halo_size[j];
	return in ? p + s->halo_size[i] : p;
}

char *GRID_SendBuffer(GRIDSubtask *s, uint32_t dest)
{
	int i = neighbour(s, dest);
	return i < 0 ? NULL : buffer(s, i, 0);
}

char *GRID_ReceiveBuffer(GRIDSubtask *s, uint32_t source)
{
	int i = neighbour(s, source);
	return i < 0 ? NULL : buffer(s, i, 1);
}

static int usable(GRIDSubtask *s, int want)
{
	if (!s->priv || L(s)->state == S_BROKEN) return GRID_EIO;
	if (L(s)->state != want) return fail(s, GRID_ESTATE, "a call out of order (state %d, want %d)", L(s)->state, want);
	return GRID_OK;
}

static int checkpointed(struct lib *l);

/* proceed reads the worker's go (and which neighbours have new values)
 * or stop. */
static int proceed(GRIDSubtask *s)
{
	size_t n = 0;
	int rc;
	if (L(s)->in) {
		rc = L(s)->in->status;
		n = s->nneighbours; /* the library wrote fresh itself */
		if (rc < 0) L(s)->state = S_BROKEN;
	} else {
		spinwait(L(s));
		rc = reply(L(s), L(s)->fresh, s->nneighbours, &n);
		while (rc == R_CHECKPOINT) {
			if ((rc = checkpointed(L(s)))) return rc;
			rc = reply(L(s), L(s)->fresh, s->nneighbours, &n);
		}
	}
	if (rc == 1) {
		L(s)->state = S_STOPPED;
		return 0;
	}
	if (rc != GRID_OK) return rc;
	if (n != s->nneighbours) {
		L(s)->state = S_BROKEN;
		return GRID_EPROTO;
	}
	L(s)->go = 1;
	return 1;
}

/* checkpointed sends the worker the registered buffers it asked for at
 * the end of an iteration (the program waits in GRID_Iterate). */
static int checkpointed(struct lib *l)
{
	unsigned char h[HDR];
	h[0] = K_CKDATA; h[1] = h[2] = h[3] = 0;
	put32(h + 4, 0);
	put64(h + 8, l->ckbytes);
	int rc = sendall(l, h, HDR);
	for (int i = 0; rc == GRID_OK && i < l->nck; i++)
		rc = sendall(l, l->ck[i].addr, l->ck[i].n);
	return rc;
}

/* restored reads a restore frame's payload (the header is read): the
 * iteration, then the registered buffers' bytes, in their order. */
static int restored(GRIDSubtask *s, const unsigned char *h)
{
	struct lib *l = L(s);
	uint64_t n = get64(h + 8);
	unsigned char it[8];
	int rc;
	if (n != 8 + l->ckbytes) {
		l->state = S_BROKEN;
		return GRID_EPROTO;
	}
	if ((rc = readn(l, it, 8))) return rc;
	for (int i = 0; i < l->nck; i++)
		if ((rc = readn(l, l->ck[i].addr, l->ck[i].n))) return rc;
	l->resumed = get64(it);
	return GRID_OK;
}

/* first reads the answer to the run's first receive, header first: a
 * restarted program gets its registered buffers (a restore frame) before
 * the go. */
static int first(GRIDSubtask *s)
{
	struct lib *l = L(s);
	for (;;) {
		unsigned char h[HDR];
		int rc = readn(l, h, HDR);
		if (rc) return rc;
		uint64_t n = get64(h + 8);
		int32_t st = (int32_t)get32(h + 4);
		if (h[0] != K_REPLY) {
			l->state = S_BROKEN;
			return GRID_EPROTO;
		}
		if (st == R_RESTORE) {
			if ((rc = restored(s, h))) return rc;
			continue;
		}
		if (n > s->nneighbours) {
			l->state = S_BROKEN;
			return GRID_EPROTO;
		}
		if (n && (rc = readn(l, l->fresh, (size_t)n))) return rc;
		if (st == 1) {
			l->state = S_STOPPED;
			return GRID_ESTATE;
		}
		if (st != GRID_OK) return st < 0 ? st : GRID_EPROTO;
		if (n != s->nneighbours) {
			l->state = S_BROKEN;
			return GRID_EPROTO;
		}
		l->go = 1;
		return GRID_OK;
	}
}

/* await gets the worker's go before the first receive of the run, telling
 * it which neighbours the program sent its first values to. */
static int await(GRIDSubtask *s)
{
	if (L(s)->go) return GRID_OK;
	struct lib *l = L(s);
	int rc = GRID_OK;
	if (!l->in && l->nck && !l->begun) {
		unsigned char b[8];
		put64(b, l->ckbytes);
		rc = sendv(l, K_CKREG, 0, 0, b, 8);
	}
	l->begun = 1;
	if (rc == GRID_OK)
		rc = l->in ? (turn(l, GH_RECEIVE), GRID_OK) : sendv(l, K_RECEIVE, DATA_FLAG, 0, l->sent, s->nneighbours);
	memset(l->sent, 0, s->nneighbours);
	if (rc) return rc;
	if (!l->in) return first(s);
	rc = proceed(s);
	return rc == 1 ? GRID_OK : rc == 0 ? GRID_ESTATE : rc;
}

int GRID_Send(GRIDSubtask *s, uint32_t dest, char *buf, size_t size, int flags)
{
	int rc = usable(s, S_RUN), i;
	if (rc) return rc;
	if ((i = neighbour(s, dest)) < 0)
		return fail(s, GRID_ERANK, "GRID_Send to rank %u, which is not a neighbour", dest);
	if (flags != DATA_FLAG)
		return fail(s, GRID_EFLAGS, "GRID_Send to rank %u with flags %d: the environment's detectors own the CTRL messages, send DATA_FLAG", dest, flags);
	if (size != s->halo_size[i])
		return fail(s, GRID_ESIZE, "GRID_Send to rank %u of %zu bytes: the halo holds %llu bytes (the job's halo parameter x 8)",
			dest, size, (unsigned long long)s->halo_size[i]);
	char *w = buffer(s, i, 0);
	if (buf != w) memcpy(w, buf, size);
	L(s)->sent[i] = 1; /* the worker learns it with the next frame */
	return GRID_OK;
}

int GRID_Receive(GRIDSubtask *s, uint32_t source, char *buf, size_t size, int flags)
{
	int rc = usable(s, S_RUN), i;
	if (rc) return rc;
	if ((i = neighbour(s, source)) < 0)
		return fail(s, GRID_ERANK, "GRID_Receive from rank %u, which is not a neighbour", source);
	if ((flags & ~NOWAIT_FLAG) != DATA_FLAG)
		return fail(s, GRID_EFLAGS, "GRID_Receive from rank %u with flags %d: the environment's detectors own the CTRL messages, receive DATA_FLAG", source, flags);
	if (size != s->halo_size[i])
		return fail(s, GRID_ESIZE, "GRID_Receive from rank %u into %zu bytes: the halo holds %llu bytes (the job's halo parameter x 8)",
			source, size, (unsigned long long)s->halo_size[i]);
	if ((rc = await(s))) return rc;
	char *w = buffer(s, i, 1);
	if (buf != w) memcpy(buf, w, size);
	L(s)->fresh[i] = 0;
	return (int)size;
}

int GRID_Wait(GRIDSubtask *s, uint32_t *rank, int *flags)
{
	int rc = usable(s, S_RUN);
	if (rc) return rc;
	if ((rc = await(s))) return rc;
	for (uint32_t i = 0; i < s->nneighbours; i++)
		if (L(s)->fresh[i]) {
			if (rank) *rank = (uint32_t)s->neighbours[i];
			if (flags) *flags = DATA_FLAG;
			return GRID_OK;
		}
	return GRID_ENOMSG;
}

int GRID_CheckpointRegister(GRIDSubtask *s, void *buf, size_t bytes)
{
	int rc = usable(s, S_RUN);
	if (rc) return rc;
	if (L(s)->begun)
		return fail(s, GRID_ESTATE, "GRID_CheckpointRegister after the loop began: register the state before the first GRID_Receive, GRID_Wait or GRID_Resumed");
	if (!buf && bytes)
		return fail(s, GRID_ESIZE, "GRID_CheckpointRegister of %zu bytes at NULL", bytes);
	struct ckbuf *c = realloc(L(s)->ck, (size_t)(L(s)->nck + 1) * sizeof *c);
	if (!c) return fail(s, GRID_EIO, "GRID_CheckpointRegister: out of memory");
	L(s)->ck = c;
	c[L(s)->nck++] = (struct ckbuf){buf, bytes};
	L(s)->ckbytes += bytes;
	return GRID_OK;
}

long long GRID_Resumed(GRIDSubtask *s)
{
	int rc = usable(s, S_RUN);
	if (rc) return rc;
	if ((rc = await(s))) return rc;
	return (long long)L(s)->resumed;
}

int GRID_Iterate(GRIDSubtask *s, double sigma)
{
	int rc = usable(s, S_RUN);
	if (rc) return rc;
	if (L(s)->in) {
		L(s)->in->sigma = sigma;
		turn(L(s), GH_ITERATE);
		memset(L(s)->sent, 0, s->nneighbours);
		return proceed(s);
	}
	if (L(s)->nck && !L(s)->begun)
		return fail(s, GRID_ESTATE, "GRID_Iterate before the first GRID_Receive: a program that registers its state calls GRID_Resumed (or GRID_Receive, GRID_Wait) before its first sweep, where a restarted program gets it back");
	uint64_t bits;
	memcpy(&bits, &sigma, 8);
	put64(L(s)->frame, bits);
	rc = sendv(L(s), K_ITERATE, 0, 0, L(s)->frame, 8 + s->nneighbours);
	memset(L(s)->sent, 0, s->nneighbours);
	if (rc) return rc;
	return proceed(s);
}

int GRID_Result(GRIDSubtask *s, const double *values, size_t count)
{
	int rc = usable(s, S_STOPPED);
	if (rc) return rc;
	if (count != s->result_size)
		return fail(s, GRID_ESIZE, "GRID_Result of %zu values, want %llu", count, (unsigned long long)s->result_size);
	if (L(s)->in) {
		L(s)->in->values = values;
		L(s)->in->count = count;
		rc = turn(L(s), GH_RESULT);
		if (rc < 0) L(s)->state = S_BROKEN;
	} else {
		if ((rc = sendv(L(s), K_RESULT, 0, 0, values, count * sizeof *values))) return rc;
		rc = reply(L(s), NULL, 0, NULL);
	}
	if (rc == GRID_OK) L(s)->state = S_DONE;
	return rc;
}

int GRID_Finalize(GRIDSubtask *s)
{
	struct lib *l = L(s);
	if (!l) return GRID_ESTATE;
	int ok = l->state == S_DONE;
	if (l->in) {
		if (!l->in->done) turn(l, GH_FINAL);
		free(l->win); /* the library is done with it */
		l->win = NULL;
		if (l->stack) munmap(l->stack, INPROC_STACK);
		free(l->in);
		/* the library stays loaded: a Go runtime cannot be unloaded */
	}
	if (l->fd >= 0) close(l->fd);
	if (l->win) munmap(l->win, l->winsize);
	free(s->neighbours);
	free(s->halo_size);
	free(l->kv);
	free(l->fresh);
	free(l->frame);
	free(l->ck);
	free(l);
	s->neighbours = s->halo_size = NULL;
	s->params = "";
	s->priv = NULL;
	return ok ? GRID_OK : GRID_ESTATE;
}

int GRID_Abort(GRIDSubtask *s, const char *reason)
{
	if (s->priv && L(s)->state != S_BROKEN && L(s)->in) {
		L(s)->in->rule = 0;
		L(s)->in->reason = reason;
		turn(L(s), GH_ABORT);
	} else if (s->priv && L(s)->state != S_BROKEN && L(s)->fd >= 0)
		sendv(L(s), K_ABORT, 0, 0, reason, strlen(reason));
	if (s->priv) L(s)->state = S_BROKEN;
	return GRID_OK;
}

const char *GRID_Param(GRIDSubtask *s, const char *key)
{
	static char value[1024];
	size_t kl = strlen(key);
	const char *p = s->params ? s->params : "";
	while (*p) {
		while (*p == ' ' || *p == '\t') p++;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t') p++;
		if ((size_t)(p - w) > kl && strncmp(w, key, kl) == 0 && w[kl] == '=') {
			size_t n = (size_t)(p - w) - kl - 1;
			if (n >= sizeof value) n = sizeof value - 1;
			memcpy(value, w + kl + 1, n);
			value[n] = 0;
			return value;
		}
	}
	return NULL;
}

const char *GRID_Strerror(int code)
{
	switch (code) {
	case GRID_OK: return "ok";
	case GRID_ENOENV: return "not started by a gridtui worker (GRIDHPC_FD or GRIDHPC_SHM_FD is not set)";
	case GRID_EPROTO: return "the worker's answer makes no sense (a gridhpc.c of another gridtui?)";
	case GRID_EIO: return "the connection to the worker broke (the run ended)";
	case GRID_ERANK: return "the rank is not a neighbour";
	case GRID_ESIZE: return "the size differs from the halo's or the result's";
	case GRID_EFLAGS: return "bad flags (messages are DATA_FLAG; CTRL belongs to the detectors)";
	case GRID_ESTATE: return "a call out of order";
	case GRID_ENOMSG: return "no neighbour has new values";
	case GRID_EFAILED: return "the worker failed the run";
	case GRID_ELIB: return "link = \"inprocess\": libgridhpc_inproc.so cannot run (why: on stderr, and in the run's error)";
	}
	return "unknown gridhpc code";
}
