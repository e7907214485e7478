package worker

import (
	"context"
	"testing"

	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// BenchmarkCopyPath is the CPU a checkpoint's copy costs off the
// iteration's path, for a part of 1 MiB (poisson n = 64 on 2 nodes: a
// 64×64×32 block): the container (CRC), kept here, framed and sent over a
// control link on loopback, received by the buddy, checked (CRC) and kept.
// docs/bench/resilience.md sets it against a sweep.
func BenchmarkCopyPath(b *testing.B) {
	ctx := context.Background()
	newEP := func(id rmnp.PeerID) *rmnp.Endpoint {
		cfg := rmnp.DefaultConfig()
		cfg.RunID, cfg.Secret, cfg.Self = [16]byte{1}, []byte("the bench secret of the copies"), id
		cfg.Listen = []string{"tcp://127.0.0.1:0"}
		e, err := rmnp.Listen(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		return e
	}
	a, z := newEP(1), newEP(2)
	defer a.Close()
	defer z.Close()
	if err := a.Connect(ctx, 2, z.Addrs()[0], rmnp.LinkOptions{Mode: rmnp.Sync, Network: "control"}); err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 1<<20)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	own, held := checkpoint.NewMemory(memoryKeep, rmnp.DefaultMaxFrame), checkpoint.NewMemory(memoryKeep, rmnp.DefaultMaxFrame)
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(payload)))
	b.ResetTimer()
	for i := range b.N {
		h := checkpoint.Header{Run: "bench", Rank: 0, Ranks: 2, Iteration: uint64(200 * (i + 1))}
		enc, err := checkpoint.Append(own.Buffer(len(payload)+400), h, payload)
		if err != nil {
			b.Fatal(err)
		}
		own.Keep(h, enc, nil)
		if err := a.Send(ctx, 2, encodeCopy(nil, enc), rmnp.CTRL); err != nil {
			b.Fatal(err)
		}
		src, kind, err := z.Wait(ctx)
		if err != nil {
			b.Fatal(err)
		}
		m, err := ReceiveCtrl(ctx, z, src, kind, &buf)
		if err != nil {
			b.Fatal(err)
		}
		_, body, _ := DecodeMsg(m)
		_, enc2, err := decodeCopy(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := held.Put(append(held.Buffer(len(enc2)), enc2...), nil); err != nil {
			b.Fatal(err)
		}
	}
}
