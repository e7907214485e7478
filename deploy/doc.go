// Package deploy connects to the hosts of an inventory (package
// deploy/inventory reads sites.toml) over SSH
// (each host and jump host resolved as OpenSSH would, by ssh -G or the config
// files: aliases, ProxyJump chains, ProxyCommand, certificates, known_hosts
// files and StrictHostKeyChecking; explicit first-use acceptance, ssh-agent
// and identity files, keyboard-interactive answers, jump hosts verified hop
// by hop, one pooled connection per host), uploads the worker binary (skipped
// when the remote sha256 matches; gzip-compressed through an exec channel when
// the host has gzip, else over SFTP, else plain through an exec channel;
// temporary name, verify, atomic rename; across the WAN once per site, one
// host relaying it to the others with `gridtui relay` and a forwarded
// read-only agent) and, beside it, the files of Options.Ship (an
// app = "exec" program and its files, sha256-checked, into the directory
// each worker runs in: an SSH host's work directory, the one a batch site's
// nodes share with its frontend, a local node's own; ship.go), and starts
// and stops workers: over SSH, as local
// processes for the embedded local grid, or as steps of a batch allocation
// that the site's frontend grants or gridtui runs in (schedulers registered
// by name in package deploy/sched, each a package of its own: Slurm and
// OAR, asked with [site.batch]'s options; Grid Engine and PBS from inside
// their jobs). A host's owner policy ([owner] tables,
// package owner) governs its local worker. Pool.OpenTunnel links two gateways through the
// console's SSH connections when no gateway port is open (Pool.DialFrom
// tells whether one is, as the dialing gateway's host sees it). A worker's life
// is bound to its stdin — the boot line with the run secret goes in, its
// hello comes out, and EOF ends it — and an allocation's to the stdin of the
// command that holds it, so nothing outlives the console. A local worker's
// end is reported as soon as SIGKILL is sent to its process, seen in the
// kernel's record of the process's pending signals (Linux, once a second;
// killwatch_linux.go), not only when the process is reaped: on a crowded
// host a killed process's threads may wait seconds to be scheduled for
// their exit, its sockets and pipes open meanwhile; Stop still waits for
// it to be gone (Worker.Gone). Progress is
// reported as plain Events that the console and the plain-terminal Progress
// display both consume.
package deploy
