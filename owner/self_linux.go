package owner

import (
	"fmt"
	"os/user"
	"strconv"
	"syscall"
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
