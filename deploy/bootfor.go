package deploy

import (
	"crypto/rand"
	"net/netip"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// NewRunSecret returns a fresh run id and a 256-bit run secret for the
// workers' RMNP handshakes.
func NewRunSecret() (id [16]byte, secret []byte) {
	rand.Read(id[:])
	secret = make([]byte, 32)
	rand.Read(secret)
	return id, secret
}

// BootFor returns the Boot of each host for StartWorkers in the run id
// and secret: local-grid nodes listen on their simulated Ethernet and fast
// addresses; real hosts choose from their NICs. The engine reuses workers
// started with it when given the same id and secret. Workers log into
// WorkerLogFile in their work directory.
func BootFor(id [16]byte, secret []byte) func(inventory.Host) Boot {
	return func(h inventory.Host) Boot {
		b := Boot{Node: h.Name, RunID: id, Secret: secret, Ethernet: h.Ethernet, Fast: h.Fast,
			Cores: h.Cores, Cluster: h.Cluster, LogFile: WorkerLogFile(h.Name), Owner: h.Owner}
		for _, a := range []netip.Addr{h.EthernetAddr, h.FastAddr} {
			if a.IsValid() {
				b.Listen = append(b.Listen, "tcp://"+netip.AddrPortFrom(a, 0).String())
			}
		}
		return b
	}
}
