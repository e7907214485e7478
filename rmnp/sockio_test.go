package rmnp

import (
	"bytes"
	"testing"
)

// TestLargeMessages sends messages far larger than the socket buffers, so that
// writes come back short and resume (sockIO's vector advance) and reads arrive in
// pieces, while the receiver both posts its buffer and lets messages be buffered.
func TestLargeMessages(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr})
		ctx := testCtx(t)
		sizes := []int{6<<20 + 3, 4 << 20, padMin + 1, 5<<20 - 17}
		errc := make(chan error, 1)
		go func() {
			for i, size := range sizes {
				if err := a.Send(ctx, 2, patterned(i, size), DATA); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		buf := make([]byte, 8<<20)
		for i, size := range sizes {
			n, err := b.Receive(ctx, 1, buf, DATA)
			if err != nil || !bytes.Equal(buf[:n], patterned(i, size)) {
				t.Fatalf("message %d (%d B): got %d B, %v", i, size, n, err)
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	})
}
