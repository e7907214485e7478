package deploy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestDeployCompressedAndWithoutSFTP: a host with gzip gets the binary
// compressed through an exec channel (fewer bytes than the file, same
// sha256); a host without the SFTP subsystem gets it plain through one.
func TestDeployCompressedAndWithoutSFTP(t *testing.T) {
	key := newTestKey(t, "")
	tests := map[string]struct {
		noSFTP, noCompress bool
		smaller            bool // fewer bytes on the wire than the file
	}{
		"gzip through exec":       {smaller: true},
		"no sftp, plain exec":     {noSFTP: true, noCompress: true},
		"no sftp, gzip preferred": {noSFTP: true, smaller: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := newTestServer(t, "127.0.0.1", key.signer.PublicKey())
			srv.noSFTP.Store(tc.noSFTP)
			opt := testOptions(writeKnownHosts(t, srv))
			opt.Binary = smallBinary(t, 1<<20+3)
			opt.NoCompress = tc.noCompress
			h := testHost(srv, key)
			s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt)
			if err != nil {
				t.Fatal(err)
			}
			r := s.Results[0]
			if tc.smaller && (r.Bytes <= 0 || r.Bytes >= 1<<20) || !tc.smaller && r.Bytes != 1<<20+3 {
				t.Fatalf("%d bytes on the wire for a %d-byte file", r.Bytes, 1<<20+3)
			}
			final := filepath.Join(srv.home, "work", binaryName)
			if got, want := fileSum(t, final), fileSum(t, opt.Binary); got != want {
				t.Fatalf("remote sha256 %s, want %s", got, want)
			}
			if st, err := os.Stat(final); err != nil || st.Mode()&0o100 == 0 {
				t.Fatalf("remote binary: %v, %v", st, err)
			}
			left, _ := filepath.Glob(filepath.Join(srv.home, "work", tmpPrefix+"*"))
			if len(left) > 0 {
				t.Fatalf("temporaries left: %v", left)
			}
			// Unchanged: nothing shipped the second time.
			if s, err := Deploy(testCtx(t), sshInventory(), []inventory.Host{h}, opt); err != nil || s.Results[0].Bytes != 0 {
				t.Fatalf("redeploy: %+v, %v", s.Results[0], err)
			}
		})
	}
}
