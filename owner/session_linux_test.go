package owner

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/shirou/gopsutil/v4/common"
	"golang.org/x/sys/unix"
)

// openPty opens a pseudo-terminal pair and returns its master, its slave
// and the slave's name under /dev ("pts/7"): the owner's terminal.
func openPty(t *testing.T) (master, slave *os.File, name string) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), unix.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock pty: %v", e)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	name = fmt.Sprintf("pts/%d", n)
	s, err := os.OpenFile("/dev/"+name, os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s, name
}

// writeUtmp writes a utmp file listing one login session (USER_PROCESS) of
// user on line, as login(1) records it (glibc's struct utmp on Linux).
func writeUtmp(t *testing.T, path, line, user string) {
	t.Helper()
	var rec struct {
		Type     int16
		_        [2]byte
		Pid      int32
		Line     [32]byte
		ID       [4]byte
		User     [32]byte
		Host     [256]byte
		Exit     [2]int16
		Session  int32
		Tv       [2]int32
		AddrV6   [4]int32
		Reserved [20]byte
	}
	rec.Type, rec.Pid = 7, int32(os.Getpid())
	copy(rec.Line[:], line)
	copy(rec.ID[:], strings.TrimPrefix(line, "pts/"))
	copy(rec.User[:], user)
	rec.Tv[0] = int32(time.Now().Unix())
	var b bytes.Buffer
	if err := binary.Write(&b, binary.LittleEndian, &rec); err != nil || b.Len() != 384 {
		t.Fatalf("utmp record of %d bytes: %v", b.Len(), err)
	}
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// atTerminal is an owner at a terminal: a pty whose session a utmp file
// lists, and the context that makes the Sampler read that file.
type atTerminal struct {
	t             *testing.T
	master, slave *os.File
	dev           string // /dev/pts/N
	ctx           context.Context
}

func newAtTerminal(t *testing.T) *atTerminal {
	m, s, name := openPty(t)
	dir := t.TempDir()
	writeUtmp(t, filepath.Join(dir, "run", "utmp"), name, "owner")
	ctx := context.WithValue(context.Background(), common.EnvKey, common.EnvMap{common.HostVarEnvKey: dir})
	return &atTerminal{t: t, master: m, slave: s, dev: "/dev/" + name, ctx: ctx}
}

// away makes the terminal's last input d ago (the owner left).
func (a *atTerminal) away(d time.Duration) {
	a.t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(a.dev, at, at); err != nil {
		a.t.Fatal(err)
	}
}

// types is a keystroke: the master writes a line, the session reads it.
// The kernel sets the terminal's access time on the read (to within 8 s:
// it rounds so as not to reveal when keys were pressed).
func (a *atTerminal) types() {
	a.t.Helper()
	if _, err := a.master.Write([]byte("ls\n")); err != nil {
		a.t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := a.slave.Read(buf); err != nil {
		a.t.Fatal(err)
	}
}

// The idle time of an interactive session is its terminal's: an hour after
// the owner left, seconds after a keystroke, as `w` shows it.
func TestSessionIdleFollowsTheTerminal(t *testing.T) {
	a := newAtTerminal(t)
	a.away(time.Hour)
	if idle := SessionIdle(a.ctx, time.Now()); idle < 59*time.Minute || idle > 61*time.Minute {
		t.Fatalf("idle %v an hour after the last key, want about 1h", idle)
	}
	a.types()
	if idle := SessionIdle(a.ctx, time.Now()); idle > 10*time.Second {
		t.Fatalf("idle %v right after a key, want under 10 s", idle)
	}
}

// The test plays the owner at a terminal: away, gridtui's part starts; a
// keystroke suspends it (HTCondor's KeyboardBusy) within a sampling
// interval or two; away again for idle_to_continue, it continues. The
// owner's CPU load is not what decides here (thresholds out of reach).
func TestGovernorOwnerAtTerminal(t *testing.T) {
	a := newAtTerminal(t)
	a.away(time.Hour)
	p := Default()
	p.OwnerCPUIdle, p.OwnerCPUBusy = 1024, 1024
	s := NewSampler()
	var mu sync.Mutex
	var log []Decision
	g := &Governor{Policy: p, Interval: 100 * time.Millisecond, Sample: s.Sample,
		Apply: func(Decision) error { return nil },
		Log: func(d Decision, err error) {
			mu.Lock()
			log = append(log, d)
			mu.Unlock()
			t.Logf("decision: %v", d)
		}}
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	go g.Run(ctx)
	wait := func(what string, want Action) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := len(log) > 0 && log[len(log)-1].Action == want
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: no %v decision within 10 s", what, want)
	}
	wait("owner away an hour", Start)
	a.types()
	wait("a keystroke", Suspend)
	mu.Lock()
	why := log[len(log)-1].Reason
	mu.Unlock()
	if !strings.Contains(why, "owner active") {
		t.Errorf("suspended because %q, want the owner's activity", why)
	}
	a.away(p.IdleToContinue + time.Minute)
	wait("owner away again", Continue)
}
