package deploy

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/sshclient"
)

// TestDialFrom checks a port as a host sees it, over the console's SSH
// connection to that host: open, closed (the sshd's connect fails), and a
// destination the sshd will not forward to (ErrForwardingRefused: nothing
// is learnt about the port).
func TestDialFrom(t *testing.T) {
	key := newTestKey(t, "")
	srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
	pool, err := sshclient.NewPool(sshInventory(), testOptions(writeKnownHosts(t, srv)).SSH())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	open, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()
	h := testHost(srv, key)
	tests := map[string]struct {
		addr      string
		refused   bool // ErrForwardingRefused
		wantError bool
	}{
		"open":          {addr: open.Addr().String()},
		"closed":        {addr: closedAddr, wantError: true},
		"not forwarded": {addr: "192.0.2.1:7400", wantError: true, refused: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := pool.DialFrom(testCtx(t), h, tc.addr)
			if (err != nil) != tc.wantError || errors.Is(err, sshclient.ErrForwardingRefused) != tc.refused {
				t.Fatalf("DialFrom(%s) = %v, want error %v, forwarding refused %v", tc.addr, err, tc.wantError, tc.refused)
			}
			if err != nil && (!strings.Contains(err.Error(), h.Name) || !strings.Contains(err.Error(), tc.addr) && !tc.refused) {
				t.Errorf("error %q does not name the host %s and the address %s", err, h.Name, tc.addr)
			}
		})
	}
}
