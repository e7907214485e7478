package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gridtui/gridtui/engine/solve"
	"github.com/gridtui/gridtui/internal/checkpoint"
	"github.com/gridtui/gridtui/rmnp"
)

// AskNewest asks holder b, over ep (the submitter's), for the newest copy
// it keeps of rank's part of the run whose checkpoints are keyed run, and
// returns its header: the iteration and step a restore from b starts at.
// It is the fetch a restored part makes (msgCopyFetch, newest, fetchFrom),
// so the statuses' lag does not matter: b answers with what it holds now.
// It asks for the header alone: the copy's payload and checksum stay on
// b, and the restore checks them.
func AskNewest(ctx context.Context, ep *rmnp.Endpoint, b solve.Holder, run string, rank int) (checkpoint.Header, error) {
	heads, errs := AskEach(ctx, ep, run, []NewestAsk{{Holder: b, Rank: rank}})
	return heads[0], errs[0]
}

// askFetches numbers AskEach's fetches, so that a late answer to an
// earlier one is told apart.
var askFetches atomic.Uint64

// NewestAsk is one ask of AskEach: the newest copy of Rank's part that
// Holder keeps.
type NewestAsk struct {
	Holder solve.Holder
	Rank   int
}

// AskEach is AskNewest of every ask at once, over ep: it links to each
// holder in parallel and sends its fetches as soon as it is linked, while
// it reads the answers, until each came or ctx ends; so the asks share one
// deadline, and a silent or unreachable holder delays no other. heads[i]
// is ask i's answer, errs[i] (nil when it came) why there is none.
func AskEach(ctx context.Context, ep *rmnp.Endpoint, run string, asks []NewestAsk) (heads []checkpoint.Header, errs []error) {
	rctx, done := context.WithCancel(ctx)
	defer done()
	a := &asking{ep: ep, run: run, asks: asks, done: done, pending: len(asks),
		heads: make([]checkpoint.Header, len(asks)), errs: make([]error, len(asks)),
		first: askFetches.Add(uint64(len(asks))) - uint64(len(asks)) + 1}
	byNode := map[string][]int{}
	for i, q := range asks {
		a.errs[i] = errNoLink
		byNode[q.Holder.Node] = append(byNode[q.Holder.Node], i)
	}
	var wg sync.WaitGroup
	for _, is := range byNode {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.send(rctx, is)
		}()
	}
	a.read(rctx)
	done() // the links still being made stop
	wg.Wait()
	for i, q := range asks {
		if errors.Is(a.errs[i], errNoLink) || errors.Is(a.errs[i], errNoAnswer) {
			a.errs[i] = fmt.Errorf("engine: copy of rank %d on %s: %w", q.Rank, q.Holder.Node, a.errs[i])
		}
	}
	return a.heads, a.errs
}

// asking is the state of an AskEach: ask i's fetch is first+i.
type asking struct {
	ep    *rmnp.Endpoint
	run   string
	asks  []NewestAsk
	first uint64
	done  context.CancelFunc // every ask settled: the reading stops

	mu      sync.Mutex
	pending int
	heads   []checkpoint.Header
	errs    []error // errNoLink, errNoAnswer: not settled yet
}

// settle gives ask i, not settled yet, its answer h or why none (a.mu
// held).
func (a *asking) settle(i int, h checkpoint.Header, err error) {
	if !errors.Is(a.errs[i], errNoLink) && !errors.Is(a.errs[i], errNoAnswer) {
		return
	}
	a.heads[i], a.errs[i] = h, err
	if a.pending--; a.pending == 0 {
		a.done()
	}
}

// send links to the holder of the asks is (all of one node) and sends
// their fetches.
func (a *asking) send(ctx context.Context, is []int) {
	_, err := linkHolder(ctx, a.ep, a.asks[is[0]].Holder)
	for _, i := range is {
		q := a.asks[i]
		var m []byte
		if err == nil {
			m, err = EncodeMsg(MsgCopyFetch, copyFetch{ID: a.first + uint64(i), Run: a.run, Rank: q.Rank, Latest: true, Header: true})
		}
		a.mu.Lock()
		if err == nil && errors.Is(a.errs[i], errNoLink) {
			a.errs[i] = errNoAnswer // before it is sent: its answer may come before Send returns
		}
		a.mu.Unlock()
		if err == nil {
			err = a.ep.Send(ctx, NodeID(q.Holder.Node), m, rmnp.CTRL)
		}
		if err != nil {
			a.mu.Lock()
			a.settle(i, checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: %w", q.Rank, q.Holder.Node, err))
			a.mu.Unlock()
		}
	}
}

// read takes the answers until ctx ends (every ask settled, or the
// deadline).
func (a *asking) read(ctx context.Context) {
	buf := make([]byte, 4<<10)
	for {
		src, kind, err := a.ep.Wait(ctx)
		if err != nil {
			return
		}
		r, err := ReceiveCtrl(ctx, a.ep, src, kind, &buf)
		if err != nil || len(r) < 10 || MsgType(r[0]) != MsgCopyReply {
			continue
		}
		i := binary.LittleEndian.Uint64(r[1:]) - a.first
		if i >= uint64(len(a.asks)) || src != NodeID(a.asks[i].Holder.Node) {
			continue // an earlier ask's, or another node's
		}
		h, err := answered(r[9:], a.asks[i])
		a.mu.Lock()
		if errors.Is(a.errs[i], errNoAnswer) {
			a.settle(int(i), h, err)
		}
		a.mu.Unlock()
	}
}

// errNoLink is an AskEach ask whose holder was not linked in time.
var errNoLink = errors.New("not linked in time")

// errNoAnswer is an AskEach ask whose holder did not answer in time.
var errNoAnswer = errors.New("no answer in time")

// answered is the header an answer r (1 and the header, or 0 and why not)
// to ask a holds.
func answered(r []byte, a NewestAsk) (checkpoint.Header, error) {
	if len(r) < 1 || r[0] != 1 {
		return checkpoint.Header{}, fmt.Errorf("engine: copy on %s: %s", a.Holder.Node, string(r[min(1, len(r)):]))
	}
	h, err := checkpoint.ParseHeader(r[1:])
	switch {
	case err != nil:
		return checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: %w", a.Rank, a.Holder.Node, err)
	case h.Rank != a.Rank:
		return checkpoint.Header{}, fmt.Errorf("engine: copy of rank %d on %s: the newest is rank %d's", a.Rank, a.Holder.Node, h.Rank)
	}
	return h, nil
}
