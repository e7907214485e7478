// Package exithold lets a test hold a killed process short of its end, as a
// crowded host does: it traces one thread of the process (not its main
// one) with PTRACE_O_TRACEEXIT, so that once the process is sent SIGKILL
// that thread stops before it exits — its main thread a zombie, its sockets
// and pipes still open, the process not yet to be waited for — until the
// test releases it. Linux only; elsewhere Hold says it cannot.
package exithold
