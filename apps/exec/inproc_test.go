package exec_test

import (
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"
)

// inprocLib builds libgridhpc_inproc.so once (cgo: gcc) and returns its
// path.
func inprocLib(t testing.TB) string {
	t.Helper()
	if _, err := osexec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): libgridhpc_inproc.so is not built")
	}
	b, _ := builds.LoadOrStore("libgridhpc_inproc.so", &built{})
	bb := b.(*built)
	bb.once.Do(func() {
		bb.path = filepath.Join(buildDir, "libgridhpc_inproc.so")
		cmd := osexec.Command("go", "build", "-buildmode=c-shared", "-o", bb.path, "./apps/exec/gridhpc/inproc")
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

func TestInprocTry(t *testing.T) {
	prog := cPoisson(t)
	for _, nodes := range []int{1, 2} {
		rep, err, _ := runExec(t, "sync", nodes, inprocess(t, poissonParams(prog, 16)))
		if err != nil {
			t.Fatal(err)
		}
		t.Log(nodes, rep.Nodes[0].Iterations, rep.Wall)
	}
}
