//go:build e2e

package e2e

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/owner/ownertest"
)

// utmpPath is where glibc and the owner policy's sampler read the
// interactive sessions.
const utmpPath = "/var/run/utmp"

// ownerLogin logs the owner in on a real pseudo-terminal, as login(1)
// would: a USER_PROCESS record for its pts line in utmp (created if the
// system keeps none). type_ makes the owner press a key (the terminal's
// access time, which `w` reads as the last input); logout ends the
// session and puts utmp back as it was.
func ownerLogin(t *testing.T) (pts string, type_ func(), logout func()) {
	t.Helper()
	_, _, line := ownertest.OpenPty(t)
	old, err := os.ReadFile(utmpPath)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	write := func(typ int16) {
		b := append(append([]byte(nil), old...), ownertest.UtmpRecord(line, ownerUser, typ)...)
		if err := os.WriteFile(utmpPath, b, 0o664); err != nil {
			t.Fatal(err)
		}
	}
	write(ownertest.UtmpUserProcess)
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
			write(ownertest.UtmpDeadProcess)
			os.WriteFile(utmpPath, old, 0o664)
		} else {
			os.Remove(utmpPath)
		}
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
