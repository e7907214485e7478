package deploy

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// fallbackWorkdir is the remote work directory, relative to the login's home.
const fallbackWorkdir = ".gridtui"

// binaryName is the worker binary's name in the work directory.
const binaryName = "gridtui"

func firstWord(cmd string) string {
	if i := strings.IndexByte(cmd, ' '); i > 0 {
		return cmd[:i]
	}
	return cmd
}

// limitedBuffer keeps the first max bytes written and drops the rest.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

// Write keeps what fits and reports everything written.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// remoteWorkdir is h's work directory as both sh (started in the home
// directory) and SFTP (relative paths are from home) understand it.
func remoteWorkdir(h inventory.Host) string {
	wd := h.Workdir
	if wd == "" {
		wd = fallbackWorkdir
	}
	if wd == "~" {
		return "."
	}
	if rest, ok := strings.CutPrefix(wd, "~/"); ok {
		wd = rest
	}
	return path.Clean(wd)
}

// checkWorkdir refuses work directories that Clean must never remove.
func checkWorkdir(h inventory.Host, wd string) error {
	switch wd {
	case ".", "/", "..", "":
		return fmt.Errorf("deploy: host %s: work directory %q would be the home or root directory; set workdir in sites.toml", h.Name, h.Workdir)
	}
	if strings.HasPrefix(wd, "../") {
		return fmt.Errorf("deploy: host %s: work directory %q is outside the home directory", h.Name, h.Workdir)
	}
	return nil
}

// remoteSum is the shell snippet printing the sha256 of p (GNU coreutils,
// else BSD/macOS shasum), or nothing if p does not exist.
func remoteSum(p string) string {
	q := shQuote(p)
	return "{ sha256sum " + q + " 2>/dev/null || shasum -a 256 " + q + " 2>/dev/null || true; }"
}

// parseSum returns the hex digest from "digest  file" output ("" if none).
func parseSum(out string) string {
	f := strings.Fields(out)
	if len(f) == 0 || len(f[0]) != 64 {
		return ""
	}
	for _, c := range f[0] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return ""
		}
	}
	return f[0]
}

// parseUname maps `uname -sm` output to Go's GOOS and GOARCH.
func parseUname(out string) (goos, goarch string, err error) {
	f := strings.Fields(out)
	if len(f) < 2 {
		return "", "", fmt.Errorf("unexpected uname output %.60q", out)
	}
	goos = strings.ToLower(f[0])
	switch m := f[1]; m {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64":
		goarch = "arm64"
	case "i386", "i486", "i586", "i686":
		goarch = "386"
	case "armv6l", "armv7l":
		goarch = "arm"
	case "ppc64le", "riscv64", "s390x", "mips64", "loong64":
		goarch = m
	default:
		return "", "", fmt.Errorf("unknown machine %q from uname", m)
	}
	return goos, goarch, nil
}
