//go:build !linux

package deploy

import "github.com/gridtui/gridtui/deploy/inventory"

// governLocal: the owner policy's sampler reads Linux's /proc and utmp;
// elsewhere a host's policy is not applied.
func governLocal(w *Worker, pgid int, h inventory.Host, ev *emitter) {}
