package rmnp

import (
	"bytes"
	"io"
	"net"
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

// TestSockIOWithoutDescriptor checks the path of connections with no file
// descriptor (net.Pipe): writes of header, pad and payload arrive whole and in
// order, and Read reads them.
func TestSockIOWithoutDescriptor(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	var w, r sockIO
	w.init(c1, 0)
	r.init(c2, 0)
	if w.ok() {
		t.Fatal("a pipe has no descriptor to read speculatively")
	}
	errc := make(chan error, 1)
	go func() { errc <- w.write([]byte("hdr"), nil, []byte("payload")) }()
	got := make([]byte, 10)
	if _, err := io.ReadFull(&r, got); err != nil || string(got) != "hdrpayload" {
		t.Fatalf("read %q, %v", got, err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
