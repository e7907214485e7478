// Package e2e is gridtui's multi-host test harness: it builds a real grid on
// one Linux machine — every host a network namespace with its own eth0 on a
// shared Ethernet bridge and ib0 on its cluster's fast bridge, a real OpenSSH
// sshd and its own user — writes the matching sites.toml and known_hosts, and
// tears it all down again. Its tests (build tag e2e, root only) drive the real
// gridtui binary across those hosts: deploy, probe, runs, failures, cleanup,
// a site behind its frontend, a Slurm site, sites linked only through their
// gateways (over a WAN link or an SSH tunnel), programs over gridhpc.h and a
// user's own binary (examples/rod).
package e2e
