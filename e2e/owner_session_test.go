//go:build e2e

package e2e

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// utmpPath is where glibc and the owner policy's sampler read the
// interactive sessions.
const utmpPath = "/var/run/utmp"

// utmpRecord is glibc's struct utmp on Linux (384 bytes): what login(1)
// and sshd write for an interactive session.
type utmpRecord struct {
	Type    int16
	_       [2]byte
	Pid     int32
	Line    [32]byte
	ID      [4]byte
	User    [32]byte
	Host    [256]byte
	Exit    [2]int16
	Session int32
	TvSec   int32
	TvUsec  int32
	Addr    [4]int32
	_       [20]byte
}

const (
	utmpUserProcess = 7
	utmpDeadProcess = 8
)

// ownerLogin logs the owner in on a real pseudo-terminal, as login(1)
// would: a USER_PROCESS record for its pts line in utmp (created if the
// system keeps none). type_ makes the owner press a key (the terminal's
// access time, which `w` reads as the last input); logout ends the
// session and puts utmp back as it was.
func ownerLogin(t *testing.T) (pts string, type_ func(), logout func()) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf("pts/%d", n)
	slave, err := os.OpenFile("/dev/"+line, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(utmpPath)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	rec := utmpRecord{Type: utmpUserProcess, Pid: int32(os.Getpid()), TvSec: int32(time.Now().Unix())}
	copy(rec.Line[:], line)
	copy(rec.ID[:], fmt.Sprintf("%d", n))
	copy(rec.User[:], ownerUser)
	copy(rec.Host[:], "e2e")
	write := func(r utmpRecord) {
		var b bytes.Buffer
		b.Write(old)
		binary.Write(&b, binary.LittleEndian, r)
		if err := os.WriteFile(utmpPath, b.Bytes(), 0o664); err != nil {
			t.Fatal(err)
		}
	}
	write(rec)
	type_ = func() {
		now := time.Now()
		os.Chtimes("/dev/"+line, now, now)
	}
	type_()
	done := false
	logout = func() {
		if done {
			return
		}
		done = true
		if existed {
			rec.Type = utmpDeadProcess
			write(rec)
			os.WriteFile(utmpPath, old, 0o664)
		} else {
			os.Remove(utmpPath)
		}
		slave.Close()
		ptmx.Close()
	}
	t.Cleanup(logout)
	return line, type_, logout
}

// TestOwnerSession plays the owner at the keyboard: while an asynchronous
// run computes, the owner logs in on a terminal of the desktop and types;
// the part is suspended within active_idle's sampling bound ("owner
// active"), stays held while they type, and is used again once their
// session has been idle for idle_to_continue; the run completes below ε.
func TestOwnerSession(t *testing.T) {
	g, desk := ownedGrid(t)
	node := desk.Ethernet.String()
	r := startRun(t, g, 10*time.Minute, "--nodes", "4", "--scheme", "async", "--n", "96", "--eps", "1e-8", "--wall-time", "8m")
	w := &heldWatch{t: t, r: r, node: node, iter: map[string]int{}}
	w.until("every node iterating", 3*time.Minute, func(s snapshot) bool {
		for _, n := range s.Nodes {
			if n.Iteration < 50 {
				return false
			}
		}
		return len(s.Nodes) == 4
	})
	pts, press, logout := ownerLogin(t)
	typing := make(chan struct{})
	go func() {
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-typing:
				return
			case <-tick.C:
				press()
			}
		}
	}()
	var reason string
	took := w.until("suspended by owner", suspendBound, func(s snapshot) bool {
		var ok bool
		reason, ok = held(s, node)
		return ok
	})
	t.Logf("suspended %v after the owner logged in on %s: %s", took, pts, reason)
	if !strings.Contains(reason, "owner active: session idle") {
		t.Errorf("held because %q, want the owner at the keyboard", reason)
	}
	time.Sleep(3 * time.Second)
	w.until("still held while the owner types", 30*time.Second, func(s snapshot) bool {
		_, ok := held(s, node)
		return ok
	})
	close(typing)
	left := time.Now()
	w.until("the host used again", 5*time.Second+suspendBound, func(s snapshot) bool {
		_, ok := held(s, node)
		return !ok
	})
	t.Logf("used again %v after the owner's last key (idle_to_continue 5s)", time.Since(left))
	if since := time.Since(left); since < 4*time.Second {
		t.Errorf("the part continued %v after the last key, before idle_to_continue", since)
	}
	logout()
	out := r.wait(t)
	if rep := out.report; out.code != 0 || rep == nil || rep.Outcome != "ok" || !rep.Checked {
		t.Fatalf("run: exit %d, report %+v", out.code, rep)
	}
	if !out.logged(node, "owner policy", "owner active") || !out.logged(node, "owner policy", "continue:") {
		t.Errorf("the run's log lacks the owner policy's decisions: %+v", out.logs)
	}
}
