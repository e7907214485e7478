package owner

import (
	"context"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// ownerWindow is how long each measurement lets the owner's process run.
const ownerWindow = 3 * time.Second

// ownerCPU runs the owner's busy loop for ownerWindow and returns the CPU
// seconds it got.
func ownerCPU(b *testing.B, cred *syscall.Credential) float64 {
	c := burn(b, cred)
	// The owner works at the default priority, whatever this benchmark's.
	syscall.Setpriority(syscall.PRIO_PGRP, c.Process.Pid, 0)
	time.Sleep(ownerWindow)
	data, err := os.ReadFile("/proc/" + strconv.Itoa(c.Process.Pid) + "/stat")
	syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	c.Wait()
	if err != nil {
		b.Fatal(err)
	}
	_, ticks, _ := statFields(data)
	return float64(ticks) / clockTicks
}

// gridtuiPart starts a part that keeps every core busy at nice 19 (the
// worker's priority), governed by the owner policy when governed.
func gridtuiPart(b *testing.B, cred *syscall.Credential, governed bool) (stop func(), partCPU func() float64) {
	var parts []int
	for range 2 {
		c := burn(b, nil)
		parts = append(parts, c.Process.Pid)
		Lower(c.Process.Pid, 100, 1)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if governed {
		p := Default()
		p.IdleToStart, p.IdleToContinue, p.ActiveIdle, p.CPUBusyFor = 0, 0, 0, 0
		p.OwnerCPUIdle, p.OwnerCPUBusy = 0.005, 0.02 // as TestGovernorOwnerLoad
		s := NewSampler()
		s.Users = []uint32{cred.Uid}
		apply := func(d Decision) error {
			for _, pg := range parts {
				s.Exclude(pg)
				(&Part{Pgid: pg}).Apply(d)
			}
			return nil
		}
		for _, pg := range parts {
			s.Exclude(pg)
		}
		g := &Governor{Policy: p, Interval: 250 * time.Millisecond, Sample: s.Sample, Apply: apply}
		go g.Run(ctx)
	}
	time.Sleep(time.Second) // the part is computing when the owner starts
	groups := map[int]bool{}
	for _, pg := range parts {
		groups[pg] = true
	}
	partCPU = func() float64 { return groupsCPU(groups) }
	return func() {
		cancel()
		for _, pg := range parts {
			syscall.Kill(-pg, syscall.SIGCONT)
			syscall.Kill(-pg, syscall.SIGKILL)
		}
	}, partCPU
}

// BenchmarkOwnerShare measures the CPU the owner's own process gets in
// ownerWindow alone, beside a gridtui part at nice 19 only, and beside one
// governed by the owner policy (suspended when the owner's load shows) as
// a process group (SIGSTOP) and as a worker's part held inside its own
// process (owner.Gate), alternating, and reports the medians' ratios to
// alone and the bound owner / (owner + governed part). Run with
// -benchtime=5x: each iteration is one round of the three.
func BenchmarkOwnerShare(b *testing.B) {
	cred := ownerCred(b)
	var alone, nice, governed, bound, gated, gatedBound, gated1s, gated1sBound []float64
	for range b.N {
		alone = append(alone, ownerCPU(b, cred))
		stop, _ := gridtuiPart(b, cred, false)
		nice = append(nice, ownerCPU(b, cred))
		stop()
		stop, partCPU := gridtuiPart(b, cred, true)
		before := partCPU()
		o := ownerCPU(b, cred)
		took := partCPU() - before
		governed = append(governed, o)
		// What the governed part took while the owner ran bounds what it can
		// have taken from the owner, whatever the rest of the machine does.
		bound = append(bound, o/(o+took))
		stop()
		// A worker's part held inside its own process (owner.Gate), as
		// every worker on a desktop is now.
		// It samples every 250 ms as the governed part, and every second:
		// each sample costs the part's process 5–15 ms of CPU here.
		stop, partCPU = gatedPart(b, 250*time.Millisecond)
		before = partCPU()
		o = ownerCPU(b, cred)
		took = partCPU() - before
		gated = append(gated, o)
		gatedBound = append(gatedBound, o/(o+took))
		stop()
		stop, partCPU = gatedPart(b, time.Second)
		before = partCPU()
		o = ownerCPU(b, cred)
		took = partCPU() - before
		gated1s = append(gated1s, o)
		gated1sBound = append(gated1sBound, o/(o+took))
		stop()
	}
	med := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	mean := func(v []float64) float64 {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		return sum / float64(len(v))
	}
	// On a shared machine the owner's loop gets what the other runnable
	// processes leave: the rounds alternate so that drift hits the three
	// alike, and both the medians' and the means' ratios are reported.
	b.ReportMetric(mean(alone), "alone-cpu-s")
	b.ReportMetric(med(nice)/med(alone), "nice19/alone-median")
	b.ReportMetric(med(governed)/med(alone), "governed/alone-median")
	b.ReportMetric(mean(nice)/mean(alone), "nice19/alone-mean")
	b.ReportMetric(mean(governed)/mean(alone), "governed/alone-mean")
	b.ReportMetric(med(bound), "governed-owner-share-bound")
	b.ReportMetric(med(gated)/med(alone), "gated/alone-median")
	b.ReportMetric(mean(gated)/mean(alone), "gated/alone-mean")
	b.ReportMetric(med(gatedBound), "gated-owner-share-bound")
	b.ReportMetric(med(gated1s)/med(alone), "gated1s/alone-median")
	b.ReportMetric(med(gated1sBound), "gated1s-owner-share-bound")
	b.Logf("owner CPU seconds in %v: alone %v, beside nice 19 %v, beside governed %v, beside gated %v, beside gated 1 s %v; owner/(owner+part) governed %v, gated %v, gated 1 s %v",
		ownerWindow, alone, nice, governed, gated, gated1s, bound, gatedBound, gated1sBound)
}
