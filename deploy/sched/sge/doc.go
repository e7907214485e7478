// Package sge registers Grid Engine (Son of Grid Engine, Altair's, Open
// Cluster Scheduler) as the batch launcher "sge", inside a parallel
// environment job only: $PE_HOSTFILE gives the allocation's hosts and
// slots, and qrsh -inherit starts a worker on one of them.
package sge
