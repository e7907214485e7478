package exec_test

import (
	"math"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gridtui/gridtui/apps/poisson"
	"github.com/gridtui/gridtui/jobs"
)

// python returns a python3 that imports NumPy (the distribution's first:
// python3-numpy), or skips the test.
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		if path, err := osexec.LookPath(p); err == nil && osexec.Command(path, "-c", "import numpy").Run() == nil {
			return path
		}
	}
	t.Skip("no python3 with NumPy (Debian: apt-get install python3-numpy): the Python example is not run")
	return ""
}

// TestRunPythonPoisson: the Python example (ctypes over libgridhpc.so, NumPy
// arrays passed without copies) on 2 nodes, synchronous: the serial
// reference's values bit for bit.
func TestRunPythonPoisson(t *testing.T) {
	py := python(t)
	lib := build(t, "libgridhpc.so", "gcc", "-O2", "-shared", "-fPIC", "-D_GNU_SOURCE", "apps/exec/gridhpc/gridhpc.c")
	t.Setenv("GRIDHPC_LIB", lib)
	t.Setenv("PYTHONPATH", filepath.Join(repoDir(t), "apps", "exec", "gridhpc"))
	p := poisson.Problem{N: 12, Eps: 1e-8}
	for _, link := range links {
		t.Run(link, func(t *testing.T) {
			params := withLink(t, link, poissonParams(py, p.N))
			params["args"] = filepath.Join(repoDir(t), "examples", "python-poisson", "poisson.py") + " " + strconv.Itoa(p.N)
			rep, err, _ := runExec(t, jobs.Synchronous, 2, params)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			it := rep.Nodes[0].Iterations
			want, _, _ := poisson.SerialSolve(poisson.Problem{N: p.N, Eps: math.SmallestNonzeroFloat64, MaxIter: it})
			sameBits(t, rep.Solution, want)
		})
	}
}

// TestRunPythonWindow: a Python rod that computes its halos in the shared
// window (send_buffer, receive_buffer: no copy at all) on 3 nodes,
// synchronous: the serial rod's values bit for bit.
func TestRunPythonWindow(t *testing.T) {
	py := python(t)
	lib := build(t, "libgridhpc.so", "gcc", "-O2", "-shared", "-fPIC", "-D_GNU_SOURCE", "apps/exec/gridhpc/gridhpc.c")
	t.Setenv("GRIDHPC_LIB", lib)
	t.Setenv("PYTHONPATH", filepath.Join(repoDir(t), "apps", "exec", "gridhpc"))
	const n = 30
	script := filepath.Join(repoDir(t), "apps", "exec", "testdata", "rod.py")
	for _, link := range links {
		t.Run(link, func(t *testing.T) {
			rep, err, _ := runExec(t, jobs.Synchronous, 3, withLink(t, link, map[string]string{"program": py, "args": script + " " + strconv.Itoa(n),
				"items": strconv.Itoa(n), "eps": "1e-9"}))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			sameBits(t, rep.Solution, serialRod(n, rep.Nodes[0].Iterations))
		})
	}
}

// TestRunFortranRod: the Fortran example (the ISO_C_BINDING module) on 3
// nodes, synchronous: the serial rod's values bit for bit.
func TestRunFortranRod(t *testing.T) {
	if _, err := osexec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the Fortran example is not built")
	}
	obj := build(t, "gridhpc.o", "gcc", "-O2", "-c", "-D_GNU_SOURCE", "apps/exec/gridhpc/gridhpc.c")
	prog := build(t, "rod", "gfortran", "-O2", "-ffp-contract=off", "-J", buildDir, "apps/exec/gridhpc/gridhpc.f90", "examples/fortran/rod.f90", obj)
	const n = 40
	for _, link := range links {
		t.Run(link, func(t *testing.T) {
			rep, err, _ := runExec(t, jobs.Synchronous, 3, withLink(t, link, map[string]string{"program": prog, "args": strconv.Itoa(n), "items": strconv.Itoa(n), "eps": "1e-9"}))
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			sameBits(t, rep.Solution, serialRod(n, rep.Nodes[0].Iterations))
		})
	}
}

// serialRod is the rod's serial Jacobi loop, run for iters iterations.
func serialRod(n, iters int) []float64 {
	h := 1.0 / float64(n+1)
	u, v := make([]float64, n+2), make([]float64, n+2)
	for range iters {
		for i := 1; i <= n; i++ {
			v[i] = (u[i-1] + u[i+1] + h*h) / 2
		}
		u, v = v, u
	}
	return u[1 : n+1]
}

// TestRunWait: testdata/wait.c receives each halo when GRID_Wait reports it
// new: synchronously every neighbour each iteration once (the serial rod
// bit for bit), asynchronously only what arrived, never twice, and the
// run converges.
func TestRunWait(t *testing.T) {
	prog := build(t, "wait", "gcc", append(cflags, "apps/exec/testdata/wait.c", "apps/exec/gridhpc/gridhpc.c", "-lm")...)
	const n = 30
	for _, link := range links {
		for _, scheme := range []jobs.Scheme{jobs.Synchronous, jobs.Asynchronous} {
			t.Run(link+"/"+string(scheme), func(t *testing.T) {
				args := strconv.Itoa(n)
				if scheme == jobs.Synchronous {
					args += " sync"
				}
				rep, err, _ := runExec(t, scheme, 3, withLink(t, link, map[string]string{"program": prog, "args": args, "items": strconv.Itoa(n), "eps": "1e-9"}))
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if scheme == jobs.Synchronous {
					sameBits(t, rep.Solution, serialRod(n, rep.Nodes[0].Iterations))
				} else if !(rep.Residual < 1e-9) {
					t.Fatalf("residual %g, want < 1e-9", rep.Residual)
				}
			})
		}
	}
}
