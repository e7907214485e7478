package owner

import (
	"fmt"
	"os/user"
	"strconv"
	"syscall"
	"time"
)

// SelfGovernor returns the Governor of this process's own part (a
// `gridtui worker` on a desktop): it puts the process group at nice 19
// and, where cgroups allow, under p's cpu_cap of cores (capErr says why
// the cap is not applied), counts the group as gridtui's when it samples
// the host, and applies each decision to gate. log receives every decision
// the governor makes, with the error of applying it.
func SelfGovernor(p Policy, cores int, gate *Gate, log func(Decision, error)) (g *Governor, capErr error, err error) {
	s := NewSampler()
	for _, name := range p.Users {
		u, err := user.Lookup(name)
		if err != nil {
			return nil, nil, fmt.Errorf("owner: owner_users: %w", err)
		}
		uid, err := strconv.ParseUint(u.Uid, 10, 32)
		if err != nil {
			return nil, nil, fmt.Errorf("owner: owner_users: user %s has uid %q: %w", name, u.Uid, err)
		}
		s.Users = append(s.Users, uint32(uid))
	}
	capErr = Lower(syscall.Getpgrp(), p.CPUCap, max(cores, 1))
	return &Governor{Policy: p, Interval: SampleEvery(p), Sample: s.Sample, Apply: gate.Apply, Log: log}, capErr, nil
}

// SampleEvery is how often a governor samples a host under p: every 5
// seconds, or faster when the policy's own bounds are shorter (a test's
// policy of one second), so that a decision never comes later than a
// bound plus one interval.
func SampleEvery(p Policy) time.Duration {
	every := 5 * time.Second
	for _, d := range []time.Duration{p.CPUBusyFor, p.ActiveIdle} {
		if d > 0 && d/2 < every {
			every = max(d/2, 250*time.Millisecond)
		}
	}
	return every
}
