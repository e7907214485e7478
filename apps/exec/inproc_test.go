package exec_test

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

// inprocLib builds libgridhpc_inproc.so once (cgo: gcc) and returns its
// path; GRIDTUI_INPROC_LIB names one built already (benchmarks).
func inprocLib(t testing.TB) string {
	t.Helper()
	if lib := os.Getenv("GRIDTUI_INPROC_LIB"); lib != "" {
		return lib
	}
	if _, err := osexec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): libgridhpc_inproc.so is not built")
	}
	b, _ := builds.LoadOrStore("libgridhpc_inproc.so", &built{})
	bb := b.(*built)
	bb.once.Do(func() {
		bb.path = filepath.Join(buildDir, "libgridhpc_inproc.so")
		cmd := osexec.Command("go", "build", "-buildmode=c-shared", "-o", bb.path, "./cmd/libgridhpc-inproc")
		cmd.Dir = repoDir(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			bb.err = fmt.Errorf("go build -buildmode=c-shared: %v\n%s", err, out)
		}
	})
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.path
}

// inprocess sets a job's link to "inprocess" with the library built here.
func inprocess(t testing.TB, params map[string]string) map[string]string {
	params["link"] = "inprocess"
	params["library"] = inprocLib(t)
	return params
}

// links are the exec application's two links; the tests run each.
var links = []string{"window", "inprocess"}

// withLink sets a job's link (inprocess: with the library built here).
func withLink(t testing.TB, link string, params map[string]string) map[string]string {
	if link == "inprocess" {
		return inprocess(t, params)
	}
	return params
}

type linkCase struct {
	name, link string
	n          int
}

// linkCases crosses the links with ns (subtest names link/n, or link/i
// when ns are all 0).
func linkCases(ns []int) []linkCase {
	var cs []linkCase
	for _, link := range links {
		for i, n := range ns {
			k := n
			if n == 0 {
				k = i
			}
			cs = append(cs, linkCase{name: link + "/" + strconv.Itoa(k), link: link, n: n})
		}
	}
	return cs
}

// TestRunInprocessLibraryMissing: link = "inprocess" without the library
// fails the run before the program starts, saying how to build it.
func TestRunInprocessLibraryMissing(t *testing.T) {
	prog := cPoisson(t)
	params := poissonParams(prog, 8)
	params["link"] = "inprocess"
	params["library"] = "/nonexistent/libgridhpc_inproc.so"
	_, err, _ := runExec(t, jobs.Synchronous, 2, params)
	want := `libgridhpc_inproc.so on every host: stat /nonexistent/libgridhpc_inproc.so: no such file or directory (build it with ` +
		"`go build -buildmode=c-shared -o libgridhpc_inproc.so ./cmd/libgridhpc-inproc`"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("run: %v, want %q", err, want)
	}
}

// TestRunInprocessLibraryBroken: a library the program cannot load fails
// the run with the loader's reason, as the program printed it.
func TestRunInprocessLibraryBroken(t *testing.T) {
	prog := cPoisson(t)
	params := poissonParams(prog, 8)
	params["link"] = "inprocess"
	params["library"] = filepath.Join(repoDir(t), "apps", "exec", "gridhpc", "gridhpc_inproc.h")
	_, err, _ := runExec(t, jobs.Synchronous, 2, params)
	// Both ranks fail alike: either may be named first.
	want := regexp.MustCompile(`exec: program ` + regexp.QuoteMeta(prog) + ` on rank [01]: cannot load ` + regexp.QuoteMeta(params["library"]))
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("run: %v, want it to match %q", err, want)
	}
}
