package owner

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// gatedPartEnv makes the test binary the gated part of BenchmarkOwnerShare
// (TestGatedPartProcess): a `gridtui worker` in miniature.
const gatedPartEnv = "GRIDTUI_OWNER_GATED_PART"

// TestGatedPartProcess is not a test: started by BenchmarkOwnerShare with
// gatedPartEnv set, it is a worker's part computing inside its own process
// — two goroutines busy between passes of an owner.Gate every 100 ms, as
// Solve reports — under SelfGovernor (nice 19, the owner's load sampled
// at the interval gatedPartEnv says), until its stdin closes.
func TestGatedPartProcess(t *testing.T) {
	if os.Getenv(gatedPartEnv) == "" {
		t.Skip("the gated part of BenchmarkOwnerShare")
	}
	p := Default()
	p.IdleToStart, p.IdleToContinue, p.ActiveIdle, p.CPUBusyFor = 0, 0, 0, 0
	p.OwnerCPUIdle, p.OwnerCPUBusy = 0.005, 0.02 // as TestGovernorOwnerLoad
	p.Users = []string{testOwner}
	gate := NewGate()
	g, _, err := SelfGovernor(p, runtime.NumCPU(), gate, nil)
	if err != nil {
		t.Fatal(err)
	}
	g.Interval, err = time.ParseDuration(os.Getenv(gatedPartEnv))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go g.Run(ctx)
	for range 2 {
		go func() {
			for ctx.Err() == nil {
				for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
				}
				gate.Pass(ctx, time.Second, nil)
			}
		}()
	}
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
	cancel()
}

// gatedPart starts TestGatedPartProcess in a process group of its own,
// sampling every every.
func gatedPart(b *testing.B, every time.Duration) (stop func(), partCPU func() float64) {
	c := exec.Command(os.Args[0], "-test.run=^TestGatedPartProcess$")
	c.Env = append(os.Environ(), gatedPartEnv+"="+every.String())
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := c.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second) // the part is computing when the owner starts
	groups := map[int]bool{c.Process.Pid: true}
	return func() {
		in.Close()
		syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
		c.Wait()
	}, func() float64 { return groupsCPU(groups) }
}
