package bsp_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/gridtui/gridtui/apps/bsp"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/engine/worker"
	"github.com/gridtui/gridtui/jobs"
)

// TestMain lets the test binary serve as `gridtui worker`, so the
// workers of the runs below carry the bsp application.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "worker" {
		if err := worker.ServeWorker(context.Background(), os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "bsp-build-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildDir string
	builds   sync.Map // name → *built
)

type built struct {
	once sync.Once
	path string
	err  error
}

// here is this package's directory.
func here() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// build compiles a C program of testdata with bsp.c once (skipping when
// there is no C compiler) and returns its path.
func build(t testing.TB, src string) string {
	t.Helper()
	if _, err := osexec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (Debian: apt-get install gcc): the BSPlib programs are not built")
	}
	b, _ := builds.LoadOrStore(src, &built{})
	bb := b.(*built)
	bb.once.Do(func() {
		bb.path = filepath.Join(buildDir, strings.TrimSuffix(filepath.Base(src), ".c"))
		lib := filepath.Join(here(), "bsplib")
		cmd := osexec.Command("cc", "-std=c99", "-O2", "-Wall", "-I"+lib, src, filepath.Join(lib, "bsp.c"), "-o", bb.path, "-lm")
		if out, err := cmd.CombinedOutput(); err != nil {
			bb.err = fmt.Errorf("cc %s: %v\n%s", src, err, out)
		}
	})
	if bb.err != nil {
		t.Fatal(bb.err)
	}
	return bb.path
}

// runBSP runs prog on n processes of the local grid.
func runBSP(t testing.TB, prog string, n int, args string) (*engine.Report, error) {
	return runBSPTimeout(t, prog, n, args, "60")
}

// runBSPTimeout runs prog with the job's timeout parameter.
func runBSPTimeout(t testing.TB, prog string, n int, args, timeout string) (*engine.Report, error) {
	t.Helper()
	spec := jobs.Spec{App: "bsp", Params: map[string]string{"program": prog, "args": args, "timeout": timeout},
		Scheme: jobs.Synchronous, Nodes: jobs.NodeSelection{Any: n}, Cores: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return engine.Run(ctx, spec, engine.RunOptions{Inventory: inventory.Embedded(), NoRecord: true, StoreDir: t.TempDir()})
}

func figure(rep *engine.Report, name string) string {
	for _, f := range rep.Figures {
		if f.Name == name {
			return f.Text
		}
	}
	return ""
}

func TestInnerProduct(t *testing.T) {
	prog := build(t, filepath.Join(here(), "testdata", "conformance", "inprod.c"))
	rep, err := runBSP(t, prog, 2, "1000")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", rep.Figures)
	if got := figure(rep, "output of process 0"); got != "inner product 333833500" {
		t.Errorf("output %q", got)
	}
}

// TestBspcc builds a program with the compiler wrapper, compiling and
// linking in one step and in two.
func TestBspcc(t *testing.T) {
	if _, err := osexec.LookPath("cc"); err != nil {
		t.Skip("no C compiler (Debian: apt-get install gcc)")
	}
	dir := t.TempDir()
	bspcc := filepath.Join(here(), "bsplib", "bspcc")
	src := filepath.Join(here(), "testdata", "conformance", "prefix.c")
	for _, steps := range [][][]string{
		{{src, "-o", filepath.Join(dir, "prefix")}},
		{{"-c", src, "-o", filepath.Join(dir, "prefix.o")}, {filepath.Join(dir, "prefix.o"), "-o", filepath.Join(dir, "prefix")}},
	} {
		for _, args := range steps {
			if out, err := osexec.Command(bspcc, args...).CombinedOutput(); err != nil {
				t.Fatalf("bspcc %v: %v\n%s", args, err, out)
			}
		}
	}
	rep, err := runBSP(t, filepath.Join(dir, "prefix"), 2, "1000")
	if err != nil || figure(rep, "output of process 1") != "prefix sums 500500" {
		t.Fatalf("run: %v", err)
	}
}
