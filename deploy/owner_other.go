//go:build !linux

package deploy

// governLocal: the owner policy's sampler reads Linux's /proc and utmp;
// elsewhere a host's policy is not applied.
func governLocal(w *Worker, pgid int, h Host, ev *emitter) {}
