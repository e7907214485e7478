// Package inventory reads and validates sites.toml (Load, Parse): sites,
// clusters and hosts with every default resolved, node sets expanded,
// [site.batch], [[site.gateway]] and [owner] tables, errors at
// file:line:col (ConfigError). With no sites.toml it is the embedded local
// grid (Embedded), or, inside a batch allocation, the allocation's nodes
// (AllocationInventory, through the schedulers of package sched). It also
// imports MPI hostfiles (ParseHostfile, ImportHostfile) and resolves the
// host, cluster and site names a user gives (SelectHosts).
package inventory
