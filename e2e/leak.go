//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Leaks lists what of this grid still exists: namespaces, users, sshd
// processes, its directory. Empty after a clean Down.
func (g *Grid) Leaks(ctx context.Context) []string {
	var out []string
	prefix := Prefix + g.ID + "-"
	ns, err := listNetns(ctx)
	if err != nil {
		out = append(out, err.Error())
	}
	for _, n := range ns {
		if strings.HasPrefix(n, prefix) {
			out = append(out, "netns "+n)
		}
	}
	users, err := passwdUsers(prefix)
	if err != nil {
		out = append(out, err.Error())
	}
	for _, u := range users {
		out = append(out, "user "+u)
	}
	for _, h := range g.sshHosts() {
		if h.sshd != nil && h.sshd.Process != nil && syscall.Kill(h.sshd.Process.Pid, 0) == nil {
			out = append(out, fmt.Sprintf("sshd of %s (pid %d)", h.Name, h.sshd.Process.Pid))
		}
	}
	for _, p := range processesOf(users) {
		out = append(out, "process "+p)
	}
	if _, err := os.Stat(g.Dir); err == nil {
		out = append(out, "directory "+g.Dir)
	}
	return out
}

// HostLeftovers lists what remains on a host of gridtui: processes of the
// host's user, its ~/.gridtui, and files it owns in the shared /tmp
// (workers put their Unix sockets there).
func (g *Grid) HostLeftovers(ctx context.Context, host string) ([]string, error) {
	h := g.Host(host)
	if h == nil {
		return nil, fmt.Errorf("e2e: no host %q in grid %s", host, g.ID)
	}
	out := processesOf([]string{h.User})
	if _, err := os.Stat(filepath.Join(h.Home, ".gridtui")); err == nil {
		out = append(out, filepath.Join(h.Home, ".gridtui"))
	}
	return append(out, tmpFilesOf(h.User)...), nil
}

// tmpFilesOf lists the entries of the shared temporary directory owned by
// user (the namespaces share one filesystem, so a host's /tmp is everyone's).
func tmpFilesOf(user string) []string {
	uid, ok := uidOf(user)
	if !ok {
		return nil
	}
	ents, _ := os.ReadDir(os.TempDir())
	var out []string
	for _, e := range ents {
		p := filepath.Join(os.TempDir(), e.Name())
		var st syscall.Stat_t
		if syscall.Lstat(p, &st) == nil && strconv.Itoa(int(st.Uid)) == uid {
			out = append(out, p)
		}
	}
	return out
}

// WaitHostClean waits (until ctx ends) for HostLeftovers to be empty — an
// SSH session's processes take a moment to go after the client hangs up —
// and returns what is left then.
func (g *Grid) WaitHostClean(ctx context.Context, host string) ([]string, error) {
	for {
		left, err := g.HostLeftovers(ctx, host)
		if err != nil || len(left) == 0 {
			return left, err
		}
		select {
		case <-ctx.Done():
			return left, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// listNetns lists the named network namespaces.
func listNetns(ctx context.Context) ([]string, error) {
	ents, err := os.ReadDir("/run/netns")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("e2e: list namespaces: %w", err)
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out, nil
}

// processesOf lists "pid (comm) of user" for every process run by one of the
// named users, read from /proc.
func processesOf(users []string) []string {
	uids := map[string]string{}
	for _, u := range users {
		if uid, ok := uidOf(u); ok {
			uids[uid] = u
		}
	}
	if len(uids) == 0 {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil {
			continue
		}
		uid, comm := statusField(string(status), "Uid:"), statusField(string(status), "Name:")
		if u, ok := uids[uid]; ok {
			out = append(out, fmt.Sprintf("%d (%s) of %s", pid, comm, u))
		}
	}
	return out
}

// statusField returns the first word after key in /proc/PID/status.
func statusField(status, key string) string {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// uidOf reads a user's uid from /etc/passwd.
func uidOf(name string) (string, bool) {
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) > 2 && f[0] == name {
			return f[2], true
		}
	}
	return "", false
}

// CleanStale removes the leftovers of grids whose owning process is gone
// (a test binary killed by SIGKILL or a timeout): their namespaces (with
// every process in them), users and directories. Grids of live processes,
// including this one's, are left alone. It returns what it removed.
func CleanStale(ctx context.Context) ([]string, error) {
	ids := map[string]bool{}
	ns, err := listNetns(ctx)
	if err != nil {
		return nil, err
	}
	users, err := passwdUsers(Prefix)
	if err != nil {
		return nil, err
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "gridtui-e2e-*"))
	for _, n := range append(append([]string{}, ns...), users...) {
		if id, ok := gridID(n); ok {
			ids[id] = true
		}
	}
	for _, d := range dirs {
		if id := strings.TrimPrefix(filepath.Base(d), "gridtui-e2e-"); validID(id) {
			ids[id] = true
		}
	}
	var removed []string
	var errs []error
	for id := range ids {
		if ownerAlive(id) {
			continue
		}
		r, err := removeGrid(ctx, id, ns, users)
		removed = append(removed, r...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// gridID extracts the grid id from "gte2e<id>-name".
func gridID(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, "-")
	return id, ok && validID(id)
}

// validID reports whether s has the form of a grid id (newGrid: 6 lower-case
// hex digits), so that nothing else is ever taken for a stale grid.
func validID(s string) bool {
	if len(s) != 6 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// ownerAlive reports whether the process that built grid id still runs.
func ownerAlive(id string) bool {
	data, err := os.ReadFile(filepath.Join(os.TempDir(), "gridtui-e2e-"+id, "owner"))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return false
	}
	return pid == os.Getpid() || syscall.Kill(pid, 0) == nil
}

// removeGrid deletes grid id's namespaces (killing what runs in them), users
// and directory.
func removeGrid(ctx context.Context, id string, ns, users []string) ([]string, error) {
	prefix := Prefix + id + "-"
	var removed []string
	var errs []error
	for _, n := range ns {
		if strings.HasPrefix(n, prefix) {
			killNetns(ctx, n)
		}
	}
	for _, n := range ns {
		if strings.HasPrefix(n, prefix) {
			errs = append(errs, delNetns(ctx, n))
			removed = append(removed, "netns "+n)
		}
	}
	for _, u := range users {
		if strings.HasPrefix(u, prefix) {
			for _, p := range tmpFilesOf(u) {
				errs = append(errs, os.RemoveAll(p))
			}
			errs = append(errs, delUser(ctx, u))
			removed = append(removed, "user "+u)
		}
	}
	dir := filepath.Join(os.TempDir(), "gridtui-e2e-"+id)
	if _, err := os.Stat(dir); err == nil {
		errs = append(errs, os.RemoveAll(dir))
		removed = append(removed, "directory "+dir)
	}
	return removed, errors.Join(errs...)
}
