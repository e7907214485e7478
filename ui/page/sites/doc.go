// Package sites is the console's Sites page: the inventory as a tree of
// sites, clusters and hosts with each host's cores, launcher, deployment
// (a bar while uploading), worker and load; d deploys and x stops the
// workers of the selection, a accepts a host's unknown key, p asks for a
// probe, J joins a free host to the live run as a spare — each a request
// message the root acts on (DeployRequestMsg, StopRequestMsg, AcceptKeyMsg,
// common.ProbeRequestMsg, JoinRequestMsg). Enter opens a host
// whole: where it is, how it is reached, and why a deployment failed.
package sites
