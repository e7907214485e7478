package rmnp

import (
	"bytes"
	"errors"
	"testing"
)

func TestSyncDataInOrder(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		checkGoroutines(t)
		a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr})
		ctx := testCtx(t)
		const n = 500
		errc := make(chan error, 1)
		go func() {
			for i := 0; i < n; i++ {
				if err := a.Send(ctx, 2, msgOf(i), DATA); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		buf := make([]byte, 64)
		for i := 0; i < n; i++ {
			k, err := b.Receive(ctx, 1, buf, DATA)
			if err != nil {
				t.Fatalf("receive %d: %v", i, err)
			}
			if !bytes.Equal(buf[:k], msgOf(i)) {
				t.Fatalf("message %d: got %q", i, buf[:k])
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		st := a.Stats()
		if len(st.Links) != 1 || st.Links[0].MessagesSent != n || st.Networks[0].Network != tr {
			t.Fatalf("stats: %+v", st)
		}
		if _, err := b.Receive(ctx, 1, buf, DATA|NoWait); !errors.Is(err, ErrNoMessage) {
			t.Fatalf("NoWait on empty: %v", err)
		}
		a.Close()
		b.Close()
	})
}
