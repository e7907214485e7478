// Package deploy puts gridtui on the hosts of an inventory and starts and
// stops its workers there. The packages under it hold the parts a newcomer
// looks for by name: deploy/inventory reads sites.toml, deploy/sshclient
// reaches hosts over SSH as OpenSSH would (one pooled connection per host),
// and deploy/sched is the registry of batch schedulers, each a package of
// its own (deploy/sched/slurm, oar, sge, pbs) that registers itself by name.
//
// Deploy uploads the worker binary (skipped when the remote sha256 matches;
// gzip-compressed through an exec channel when the host has gzip, else over
// SFTP, else plain through an exec channel; temporary name, verify, atomic
// rename; upload.go; across the WAN once per site, one host relaying it to
// the others with `gridtui relay` and a forwarded read-only agent, relay.go)
// and, beside it, the files of Options.Ship (an app = "exec" program and its
// files, sha256-checked, into the directory each worker runs in: an SSH
// host's work directory, the one a batch site's nodes share with its
// frontend, a local node's own; ship.go). StartWorkers starts workers over
// SSH (worker_ssh.go), as local processes for the embedded local grid
// (worker_local.go), or as steps of a batch allocation that the site's
// frontend grants or gridtui runs in (batch_start.go: Slurm and OAR are
// asked with [site.batch]'s options; Grid Engine and PBS are used from
// inside their jobs). A later StartWorkers of the same run (Boot.RunID: a
// recovery's new worker on a lost node's host) starts its step in the run's
// live allocation of that site when it holds the host (batch_live.go), since
// a new allocation of the node would wait behind the run's own. A host's
// owner policy ([owner] tables, package owner) governs its local worker.
//
// A worker's life is bound to its stdin — the boot line with the run secret
// goes in, its hello comes out, and EOF ends it — and an allocation's to the
// stdin of the command that holds it, so nothing outlives the console. A
// local worker's end is reported as soon as SIGKILL is sent to its process,
// seen in the kernel's record of the process's pending signals (Linux, once
// a second; killwatch_linux.go), not only when the process is reaped: on a
// crowded host a killed process's threads may wait seconds to be scheduled
// for their exit, its sockets and pipes open meanwhile; Stop still waits for
// it to be gone (Worker.Gone). Progress is reported as plain Events that the
// console and the plain-terminal Progress display both consume.
package deploy
