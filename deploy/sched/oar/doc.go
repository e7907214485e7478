// Package oar registers OAR (Grid'5000's scheduler) as the batch launcher
// "oar": oarsub on a site's frontend reserves the nodes, oarstat shows a
// waiting job's state and place in the queue, oarsh starts a worker on a
// node of the job and oardel releases it; inside a job, $OAR_NODEFILE gives
// the allocation's nodes and cores.
package oar
