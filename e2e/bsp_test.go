//go:build e2e

package e2e

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// buildBSP compiles a conformance program of apps/bsp with bsp.c into
// dir, or skips the test when gcc is missing.
func buildBSP(t *testing.T, dir, name string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed (Debian: apt-get install gcc): the BSPlib programs are not built")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..")
	out := filepath.Join(dir, name)
	cmd := exec.Command("gcc", "-O2", "-std=c99", "-Iapps/bsp/bsplib", "-o", out,
		"apps/bsp/testdata/conformance/"+name+".c", "apps/bsp/bsplib/bsp.c")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// TestRunBSP runs BSPlib programs over SSH on hosts of both clusters: the
// inner product and the prefix sum give the serial results on 1, 2, 4 and 8
// processes, and broken rules fail the run naming the process, the call
// and the rule.
func TestRunBSP(t *testing.T) {
	dir := programDir(t)
	progs := map[string]string{}
	for _, name := range []string{"inprod", "prefix", "get_before_put", "bsmp", "err_put_bounds", "err_unequal_reg", "err_no_end"} {
		progs[name] = buildBSP(t, dir, name)
	}
	g := newGridT(t, Config{HostsA: 4, HostsB: 4})
	deployOrSkip(t, g)
	output := func(rep *runReport) string {
		var b strings.Builder
		for _, f := range rep.Figures {
			if strings.HasPrefix(f.Name, "output of") {
				b.WriteString(f.Text + "\n")
			}
		}
		return b.String()
	}
	for _, n := range []int{1, 2, 4, 8} {
		for _, tc := range []struct{ prog, args, want string }{
			{"inprod", "1000", "inner product 333833500"},
			{"prefix", "100000", "prefix sums 5000050000"},
			{"get_before_put", "", ""},
			{"bsmp", "", ""},
		} {
			t.Run(tc.prog+"/"+strconv.Itoa(n), func(t *testing.T) {
				out := runJob(t, g, "--app", "bsp", "--nodes", strconv.Itoa(n), "--param", "program="+progs[tc.prog],
					"--param", "args="+tc.args, "--wall-time", "2m")
				rep := out.report
				if out.code != 0 || rep == nil || rep.Outcome != "ok" {
					t.Fatalf("exit %d, report %+v", out.code, rep)
				}
				if !strings.Contains(output(rep), tc.want) {
					t.Errorf("output %q, want %q", output(rep), tc.want)
				}
			})
		}
	}
	for _, tc := range []struct{ prog, want string }{
		{"err_put_bounds", "process 0: bsp_put: bytes 4…20 are outside the 8 bytes process 3 registered"},
		{"err_unequal_reg", "every process must register the same number"},
		{"err_no_end", "process 0: exited with status 0 in superstep 1, without calling bsp_end"},
	} {
		t.Run(tc.prog, func(t *testing.T) {
			out := runJob(t, g, "--app", "bsp", "--nodes", "4", "--param", "program="+progs[tc.prog], "--wall-time", "2m")
			rep := out.report
			if out.code == 0 || rep == nil || rep.FailedNode == "" {
				t.Fatalf("exit %d, report %+v: want a failed run", out.code, rep)
			}
			if !strings.Contains(rep.Cause, tc.want) && !strings.Contains(out.raw, tc.want) {
				t.Errorf("cause %q, want %q", rep.Cause, tc.want)
			}
		})
	}
}
