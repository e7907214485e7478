package rmnp_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gridtui/gridtui/rmnp"
)

// Two workers of one run exchange a halo (DATA) and a convergence token (CTRL), as
// GRID_Send / GRID_Wait / GRID_Receive in GRIDHPC Sec. V-A.
func Example() {
	ctx := context.Background()
	run := [16]byte{1}
	secret := []byte("per-run secret sent over ssh stdin")
	newWorker := func(id rmnp.PeerID) *rmnp.Endpoint {
		cfg := rmnp.DefaultConfig()
		cfg.RunID, cfg.Secret, cfg.Self = run, secret, id
		cfg.Listen = []string{"tcp://127.0.0.1:0"}
		e, err := rmnp.Listen(ctx, cfg)
		if err != nil {
			log.Fatal(err)
		}
		return e
	}
	w1, w2 := newWorker(1), newWorker(2)
	defer w1.Close()
	defer w2.Close()

	// The lower id dials; the engine picks the mode from the scheme and locality.
	opts := rmnp.LinkOptions{Mode: rmnp.Sync, Network: "ethernet"}
	if err := w1.Connect(ctx, 2, w2.Addrs()[0], opts); err != nil {
		log.Fatal(err)
	}
	if err := w1.SendFloat64s(ctx, 2, []float64{0.5, 0.25, 0.125}, rmnp.DATA); err != nil {
		log.Fatal(err)
	}
	if err := w1.Send(ctx, 2, []byte("tok_conv"), rmnp.CTRL); err != nil {
		log.Fatal(err)
	}

	src, kind, err := w2.Wait(ctx) // oldest buffered message, not consumed
	if err != nil {
		log.Fatal(err)
	}
	halo := make([]float64, 3)
	n, err := w2.ReceiveFloat64s(ctx, src, halo, kind)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(src, kind, halo[:n])

	buf := make([]byte, 64)
	m, err := w2.Receive(ctx, 1, buf, rmnp.CTRL)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(buf[:m]))
	st := w2.Stats().Networks[0]
	fmt.Println(st.Network, st.MessagesReceived)
	// Output:
	// 1 DATA [0.5 0.25 0.125]
	// tok_conv
	// ethernet 2
}

// Receive with NoWait polls, as an asynchronous iteration that uses a halo only if
// it has arrived ("message pipelining" in PACX-MPI).
func ExampleEndpoint_Receive_noWait() {
	cfg := rmnp.DefaultConfig()
	cfg.Secret = []byte("per-run secret sent over ssh stdin")
	e, err := rmnp.Listen(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	_, err = e.Receive(context.Background(), 7, make([]byte, 8), rmnp.DATA|rmnp.NoWait)
	fmt.Println(err)
	// Output: rmnp: no message
}
