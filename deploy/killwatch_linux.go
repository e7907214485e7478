package deploy

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// killWatchInterval is how often the console looks whether its local
// workers were sent SIGKILL: one read of the kernel's status of each
// worker's process per interval, all in one pass, a small share of the 3 s
// in which a killed process is to be reported. On a host crowded with
// hundreds of workers the console's share of the processors is small, and
// what the watch takes of it delays everything else the console does.
const killWatchInterval = time.Second

// shdPndHasKill reports whether the ShdPnd line of a /proc/<pid>/status
// text holds SIGKILL (signal 9: bit 8 of the hexadecimal mask): sent to
// the process as a whole (kill(2) of the process or its group, the
// out-of-memory killer), the kernel keeps it in the process's shared
// pending set from the moment it is sent until the process is reaped,
// while every thread of the process is made to exit. Such a process is
// irrevocably ending, even while some of its threads wait to be scheduled
// for their exit on a crowded host (its sockets and pipes close, and its
// exit can be waited for, only once the last of them has run). A process
// that exits on its own never has SIGKILL there.
func shdPndHasKill(status []byte) bool {
	_, rest, ok := bytes.Cut(status, []byte("\nShdPnd:"))
	if !ok {
		return false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 64)
	return err == nil && mask&(1<<(9-1)) != 0
}

// killWatch reads the status of every watched process once an interval,
// in one goroutine that runs while any is watched: each through a file
// kept open (read again from its start, which the kernel regenerates),
// half the cost of opening it each time.
type killWatch struct {
	mu       sync.Mutex
	procs    map[*watchedProc]bool
	interval time.Duration
	running  bool
	buf      []byte
}

type watchedProc struct {
	f      *os.File
	killed chan struct{} // closed when SIGKILL is seen
}

var kills = &killWatch{procs: map[*watchedProc]bool{}, interval: killWatchInterval}

// watchKill calls killed once if SIGKILL is seen delivered to process pid
// (a local worker, the console's child) before stop is closed. It returns
// when either happens.
func watchKill(pid int, stop <-chan struct{}, killed func()) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		<-stop // not readable here: the process's exit tells
		return
	}
	p := &watchedProc{f: f, killed: make(chan struct{})}
	kills.add(p)
	defer kills.remove(p)
	select {
	case <-stop:
	case <-p.killed:
		killed()
	}
}

func (k *killWatch) add(p *watchedProc) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.procs[p] = true
	if !k.running {
		k.running = true
		go k.run()
	}
}

// remove stops watching p and closes its file.
func (k *killWatch) remove(p *watchedProc) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.procs, p)
	p.f.Close()
}

// run scans the watched processes every interval until none is left.
func (k *killWatch) run() {
	t := time.NewTicker(k.interval)
	defer t.Stop()
	for range t.C {
		if !k.scan() {
			return
		}
	}
}

// scan reads each watched process's status once and reports whether any
// is still watched (when not, the watch's goroutine ends).
func (k *killWatch) scan() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.procs) == 0 {
		k.running = false
		return false
	}
	if k.buf == nil {
		k.buf = make([]byte, 8192)
	}
	for p := range k.procs {
		n, _ := p.f.ReadAt(k.buf, 0)
		if shdPndHasKill(k.buf[:n]) {
			close(p.killed)
			delete(k.procs, p) // its file is closed by remove
		}
	}
	return true
}
