package exec_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/gridtui/gridtui/engine/worker"
)

// TestMain lets the test binary serve as `gridtui worker` (the local
// launcher execs os.Executable() with the argument "worker"), so the
// workers of the runs below carry the exec application.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := worker.ServeWorker(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "gridhpc-build-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildDir holds the programs the tests build, once per test binary.
var (
	buildDir string
	builds   sync.Map // name → *built
)

type built struct {
	once sync.Once
	path string
	err  error
}

// repoDir returns the repository's root (this package is apps/exec).
func repoDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// build compiles a program once with tool (skipping the test when the
// tool is not installed) and returns its path.
func build(t testing.TB, name, tool string, args ...string) string {
	t.Helper()
	if _, err := osexec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed (Debian: apt-get install %s): the %s example is not built", tool, debianPackage(tool), name)
	}
	b, _ := builds.LoadOrStore(name, &built{})
	bb := b.(*built)
	bb.once.Do(func() {
		bb.path = filepath.Join(buildDir, name)
		cmd := osexec.Command(tool, append(args, "-o", bb.path)...)
		cmd.Dir = repoDir(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			bb.err = fmt.Errorf("%s %v: %v\n%s", tool, args, err, out)
		}
	})
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.path
}

func debianPackage(tool string) string {
	switch tool {
	case "gfortran":
		return "gfortran"
	case "python3":
		return "python3-numpy"
	}
	return "gcc"
}

var cflags = []string{"-O2", "-std=c99", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off", "-D_GNU_SOURCE", "-Iapps/exec/gridhpc"}

// cPoisson builds examples/c-poisson.
func cPoisson(t testing.TB) string {
	return build(t, "c-poisson", "gcc", append(cflags, "examples/c-poisson/poisson.c", "apps/exec/gridhpc/gridhpc.c")...)
}

// faulty builds the test program that breaks the rules on demand.
func faulty(t testing.TB) string {
	return build(t, "faulty", "gcc", append(cflags, "apps/exec/testdata/faulty.c", "apps/exec/gridhpc/gridhpc.c")...)
}

// ckchain builds the test program that registers its state.
func ckchain(t testing.TB) string {
	return build(t, "ckchain", "gcc", append(cflags, "apps/exec/testdata/ckchain.c", "apps/exec/gridhpc/gridhpc.c")...)
}
