package ownertest

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/shirou/gopsutil/v4/common"
	"golang.org/x/sys/unix"
)

// Terminal is an owner at a terminal: a pty whose login session the utmp
// file under HostVar lists.
type Terminal struct {
	t             testing.TB
	Master, Slave *os.File
	// Dev is the terminal's device, /dev/pts/N.
	Dev string
	// HostVar is the directory that stands for /var: a sampler reads the
	// session from HostVar/run/utmp when HOST_VAR names it (in its
	// environment or its context, Context).
	HostVar string
}

// NewTerminal opens a pty and writes a utmp file listing one login session
// of user on it; the test is skipped where there are no pseudo-terminals.
func NewTerminal(t testing.TB, user string) *Terminal {
	t.Helper()
	m, s, name := OpenPty(t)
	dir := t.TempDir()
	writeUtmp(t, filepath.Join(dir, "run", "utmp"), name, user)
	return &Terminal{t: t, Master: m, Slave: s, Dev: "/dev/" + name, HostVar: dir}
}

// Context is ctx with HOST_VAR set to the terminal's HostVar, for a
// sampler in this process.
func (a *Terminal) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, common.EnvKey, common.EnvMap{common.HostVarEnvKey: a.HostVar})
}

// Away makes the terminal's last input d ago (the owner left).
func (a *Terminal) Away(d time.Duration) {
	a.t.Helper()
	at := time.Now().Add(-d)
	if err := os.Chtimes(a.Dev, at, at); err != nil {
		a.t.Fatal(err)
	}
}

// Types is a keystroke: the master writes a line, the session reads it.
// The kernel sets the terminal's access time on the read (to within 8 s:
// it rounds so as not to reveal when keys were pressed).
func (a *Terminal) Types() {
	a.t.Helper()
	if _, err := a.Master.Write([]byte("ls\n")); err != nil {
		a.t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := a.Slave.Read(buf); err != nil {
		a.t.Fatal(err)
	}
}

// OpenPty opens a pseudo-terminal pair and returns its master, its slave
// and the slave's name under /dev ("pts/7"); both close with the test,
// which is skipped where there are no pseudo-terminals.
func OpenPty(t testing.TB) (master, slave *os.File, name string) {
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
// user on line, as login(1) records it.
func writeUtmp(t testing.TB, path, line, user string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, UtmpRecord(line, user, UtmpUserProcess), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The utmp record types a session's start and end are written with.
const (
	UtmpUserProcess = 7 // USER_PROCESS: a login session
	UtmpDeadProcess = 8 // DEAD_PROCESS: the session ended
)

// UtmpRecord is the 384-byte utmp record (glibc's struct utmp on Linux)
// of a session of user on line ("pts/7"), of type typ, as login(1) and
// sshd write it.
func UtmpRecord(line, user string, typ int16) []byte {
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
	rec.Type, rec.Pid = typ, int32(os.Getpid())
	copy(rec.Line[:], line)
	copy(rec.ID[:], strings.TrimPrefix(line, "pts/"))
	copy(rec.User[:], user)
	rec.Tv[0] = int32(time.Now().Unix())
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, &rec) // fixed-size: cannot fail
	return b.Bytes()
}
