package rmnp

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// TestConcurrentReceivers mixes CTRL and DATA of random sizes (some large enough
// for speculative reads, with mispredictions) and has two goroutines receive them
// concurrently — one blocking on CTRL, one alternating blocking and polling
// receives of DATA — so that the read side changes hands between the background
// reader and both receivers. Every message must arrive once, in order, intact.
func TestConcurrentReceivers(t *testing.T) {
	each(t, func(t *testing.T, tr string) {
		for _, compress := range []bool{false, true} {
			t.Run(map[bool]string{false: "raw", true: "s2"}[compress], func(t *testing.T) {
				concurrentReceivers(t, tr, compress)
			})
		}
	})
}

func concurrentReceivers(t *testing.T, tr string, compress bool) {
	checkGoroutines(t)
	a, b := pair(t, tr, LinkOptions{Mode: Sync, Network: tr, Compress: compress})
	ctx := testCtx(t)
	rng := rand.New(rand.NewPCG(1, 2))
	type msgSpec struct {
		kind Flags
		size int
	}
	var script []msgSpec
	counts := map[Flags]int{}
	sizes := map[Flags][]int{}
	for range 400 {
		k := DATA
		if rng.IntN(3) == 0 {
			k = CTRL
		}
		size := rng.IntN(64)
		if rng.IntN(4) == 0 {
			size = 8<<10 + rng.IntN(3)*4096 // repeated large sizes: predictions hit and miss
		}
		script = append(script, msgSpec{k, size})
		counts[k]++
		sizes[k] = append(sizes[k], size)
	}
	content := func(k Flags, i, size int) []byte {
		b := make([]byte, size)
		for j := range b {
			b[j] = byte(int(k)*101 + i*7 + j)
		}
		return b
	}
	go func() {
		seen := map[Flags]int{}
		for _, m := range script {
			if err := a.Send(ctx, 2, content(m.kind, seen[m.kind], m.size), m.kind); err != nil {
				t.Error(err)
				return
			}
			seen[m.kind]++
			if rng.IntN(8) == 0 {
				runtime.Gosched()
			}
		}
	}()
	var wg sync.WaitGroup
	for _, k := range []Flags{CTRL, DATA} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for i := 0; i < counts[k]; {
				flags := k
				if k == DATA && i%3 == 1 {
					flags |= NoWait
				}
				n, err := b.Receive(ctx, 1, buf, flags)
				if errors.Is(err, ErrNoMessage) {
					runtime.Gosched()
					continue
				}
				if err != nil {
					t.Errorf("%v %d: %v", k, i, err)
					return
				}
				want := content(k, i, sizes[k][i])
				if !bytes.Equal(buf[:n], want) {
					t.Errorf("%v %d: %d bytes, content differs", k, i, n)
					return
				}
				i++
			}
		}()
	}
	wg.Wait()
	s := linkStats(t, b)
	if s.MessagesReceived != uint64(len(script)) {
		t.Fatalf("received %d frames, sent %d", s.MessagesReceived, len(script))
	}
	if compress && s.WireDataReceived >= s.RawDataReceived {
		t.Fatalf("compression had no effect: %+v", s.Counters)
	}
}
