package bsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Transport carries superstep messages between the processes of one BSP
// computation: reliable and in order for each pair, whole messages.
type Transport interface {
	// Send sends b to process pid; b may be reused when it returns.
	Send(ctx context.Context, pid int, b []byte) error
	// Receive returns the next message from process pid, in buf when it
	// is large enough (the result may alias buf).
	Receive(ctx context.Context, pid int, buf []byte) ([]byte, error)
}

// RuleError is a broken rule of the BSPlib standard: which process, in
// which call, broke which rule. A run that ends with one is failed.
type RuleError struct {
	Pid  int    // the process that broke the rule
	Call string // the call, as the standard names it (bsp_put…)
	Rule string // the rule, in words
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("bsp: process %d: %s: %s", e.Pid, e.Call, e.Rule)
}

// ErrRule matches every RuleError with errors.Is.
var ErrRule = errors.New("bsp: rule of the BSPlib standard broken")

// Is makes errors.Is(err, ErrRule) true for a RuleError.
func (e *RuleError) Is(target error) bool { return target == ErrRule }

// Stats are one process's times and traffic, per superstep or summed.
type Stats struct {
	Supersteps int
	Compute    time.Duration // between barriers, in the program
	Comm       time.Duration // encoding, sending, serving gets, decoding
	Wait       time.Duration // blocked at the barrier for the others' messages
	BytesOut   int64         // bytes of puts, gets served and messages sent
	BytesIn    int64         // bytes of puts, gets and messages received
	HMax       int64         // the largest h-relation of a superstep, max(out, in)
}

// Add adds the counts of one superstep to s.
func (s *Stats) Add(t Stats) {
	s.Supersteps += t.Supersteps
	s.Compute += t.Compute
	s.Comm += t.Comm
	s.Wait += t.Wait
	s.BytesOut += t.BytesOut
	s.BytesIn += t.BytesIn
	s.HMax = max(s.HMax, t.HMax)
}

// Incoming is what a superstep brought a process: the data of its gets (in
// the order of Step.Gets), the puts of every process into its memory
// (ordered by source process, then call order) to apply after the gets
// were served, and the messages for its queue (same order).
type Incoming struct {
	GetData [][]byte
	Puts    []Put
	Msgs    []Message
	// Stats of this superstep (Compute is the caller's to fill).
	Stats Stats
}

// Server reads the data of the gets of other processes from this process's
// memory, before any put of the superstep is applied; each Get's Pid is
// the requester. It returns one slice per get.
type Server func(reqs []Get) ([][]byte, error)

// Exchanger performs supersteps for one process: it keeps the buffers the
// messages are encoded into and received in.
type Exchanger struct {
	T         Transport
	Pid       int
	NProcs    int
	Superstep int // the number of the current superstep, from 0
	out, in   [][]byte
}

// Exchange performs the barrier of the current superstep with the step st
// of this process: every process sends every other its puts, gets and
// messages for it (the total exchange is the barrier), the gets are served
// from this process's memory with serve, and their data returned. A
// collective rule broken by some process is a *RuleError naming it.
func (x *Exchanger) Exchange(ctx context.Context, st *Step, serve Server) (*Incoming, error) {
	if len(x.out) != x.NProcs {
		x.out, x.in = make([][]byte, x.NProcs), make([][]byte, x.NProcs)
	}
	start := time.Now()
	var in Incoming
	if err := x.send(ctx, st); err != nil {
		return nil, err
	}
	steps, wait, err := x.receive(ctx)
	if err != nil {
		return nil, err
	}
	if err := x.check(st, steps); err != nil {
		return nil, err
	}
	if err := x.serveGets(ctx, steps, serve, &in); err != nil {
		return nil, err
	}
	t := time.Now()
	if err := x.receiveGets(ctx, st, &in); err != nil {
		return nil, err
	}
	wait += time.Since(t)
	tally(st, steps, &in)
	in.Stats.Supersteps = 1
	in.Stats.Wait = wait
	in.Stats.Comm = time.Since(start) - wait
	in.Stats.HMax = max(in.Stats.BytesIn, in.Stats.BytesOut)
	x.Superstep++
	return &in, nil
}

// send encodes this process's step for every process and sends it to the
// others (its own stays in x.out).
func (x *Exchanger) send(ctx context.Context, st *Step) error {
	dests := bucket(st, x.NProcs)
	for d := range x.NProcs {
		x.out[d] = encodeFor(x.out[d][:0], st, dests[d], x.Superstep, x.NProcs)
		// Room for padding to whole words: a transport of float64s then
		// sends the buffer as it is.
		x.out[d] = slices.Grow(x.out[d], 8)
		if d != x.Pid {
			if err := x.T.Send(ctx, d, x.out[d]); err != nil {
				return fmt.Errorf("bsp: superstep %d: send to process %d: %w", x.Superstep, d, err)
			}
		}
	}
	return nil
}

// receive receives and decodes every process's step for this one, and
// returns how long it waited for them.
func (x *Exchanger) receive(ctx context.Context) ([]parsed, time.Duration, error) {
	var wait time.Duration
	steps := make([]parsed, x.NProcs)
	for s := range x.NProcs {
		b := x.out[s]
		if s != x.Pid {
			t := time.Now()
			var err error
			if b, err = x.T.Receive(ctx, s, x.in[s][:0]); err != nil {
				return nil, 0, fmt.Errorf("bsp: superstep %d: receive from process %d: %w", x.Superstep, s, err)
			}
			wait += time.Since(t)
			x.in[s] = b
		}
		p, err := decodeStep(b, s)
		if err != nil {
			return nil, 0, err
		}
		steps[s] = p
	}
	return steps, wait, nil
}

// tally gathers the puts and messages for this process and counts the
// bytes of the superstep's h-relation.
func tally(st *Step, steps []parsed, in *Incoming) {
	for _, p := range steps {
		in.Puts = append(in.Puts, p.puts...)
		in.Msgs = append(in.Msgs, p.msgs...)
		for _, q := range p.puts {
			in.Stats.BytesIn += int64(len(q.Data))
		}
		for _, m := range p.msgs {
			in.Stats.BytesIn += int64(len(m.Payload) + len(m.Tag))
		}
	}
	for _, p := range st.Puts {
		in.Stats.BytesOut += int64(len(p.Data))
	}
	for _, m := range st.Msgs {
		in.Stats.BytesOut += int64(len(m.Payload) + len(m.Tag))
	}
}

// check compares the collective parts of every process's step with this
// one's: bsp_sync against bsp_end, the number of processes, registrations
// and the tag size.
func (x *Exchanger) check(st *Step, steps []parsed) error {
	mine := steps[x.Pid]
	for s, p := range steps {
		if s == x.Pid {
			continue
		}
		call := "bsp_sync"
		if p.kind == kindEnd {
			call = "bsp_end"
		}
		switch {
		case p.superstep != mine.superstep:
			return &RuleError{Pid: s, Call: call, Rule: fmt.Sprintf("in superstep %d while process %d is in superstep %d", p.superstep, x.Pid, mine.superstep)}
		case p.kind != mine.kind:
			other := "bsp_sync"
			if mine.kind == kindEnd {
				other = "bsp_end"
			}
			return &RuleError{Pid: s, Call: call, Rule: fmt.Sprintf("called at the end of superstep %d while process %d called %s: every process must call the same", x.Superstep, x.Pid, other)}
		case p.nprocs != mine.nprocs:
			return &RuleError{Pid: s, Call: "bsp_begin", Rule: fmt.Sprintf("asked for %d processes, process %d for %d", p.nprocs, x.Pid, mine.nprocs)}
		case p.pushes != mine.pushes:
			return &RuleError{Pid: s, Call: "bsp_push_reg", Rule: fmt.Sprintf("registered %d areas in superstep %d, process %d registered %d: every process must register the same number, in the same order", p.pushes, x.Superstep, x.Pid, mine.pushes)}
		case !slices.Equal(p.pops, mine.pops):
			return &RuleError{Pid: s, Call: "bsp_pop_reg", Rule: fmt.Sprintf("removed registrations %v in superstep %d, process %d removed %v: every process must remove the same, in the same order", p.pops, x.Superstep, x.Pid, mine.pops)}
		case p.tagsize != mine.tagsize:
			return &RuleError{Pid: s, Call: "bsp_set_tagsize", Rule: fmt.Sprintf("set the tag size to %d in superstep %d, process %d to %d: every process must set the same", p.tagsize, x.Superstep, x.Pid, mine.tagsize)}
		}
	}
	return nil
}

// serveGets answers the gets the other processes asked of this one.
func (x *Exchanger) serveGets(ctx context.Context, steps []parsed, serve Server, in *Incoming) error {
	var reqs []Get
	for _, p := range steps {
		reqs = append(reqs, p.gets...)
	}
	if len(reqs) == 0 {
		return nil
	}
	data, err := serve(reqs)
	if err != nil {
		return err
	}
	if len(data) != len(reqs) {
		return fmt.Errorf("bsp: %d gets served, %d asked", len(data), len(reqs))
	}
	i := 0
	for s, p := range steps {
		if len(p.gets) == 0 {
			continue
		}
		var b []byte
		for _, g := range p.gets {
			if len(data[i]) != g.Len {
				return fmt.Errorf("bsp: get of process %d served %d bytes, asked %d", s, len(data[i]), g.Len)
			}
			b = append(b, data[i]...)
			in.Stats.BytesOut += int64(g.Len)
			i++
		}
		if s == x.Pid {
			in.GetData = splitGets(b, p.gets, in.GetData)
			continue
		}
		if err := x.T.Send(ctx, s, b); err != nil {
			return fmt.Errorf("bsp: superstep %d: get reply to process %d: %w", x.Superstep, s, err)
		}
	}
	return nil
}

// receiveGets receives the data of this process's gets, process by process.
func (x *Exchanger) receiveGets(ctx context.Context, st *Step, in *Incoming) error {
	if len(st.Gets) == 0 {
		return nil
	}
	// The gets to itself were served in serveGets, in order; the others
	// arrive per source, and are put back in call order.
	self := in.GetData
	in.GetData = make([][]byte, len(st.Gets))
	bySrc := map[int][]int{}
	for i, g := range st.Gets {
		bySrc[g.Pid] = append(bySrc[g.Pid], i)
	}
	for src, idx := range bySrc {
		if src == x.Pid {
			for k, i := range idx {
				in.GetData[i] = self[k]
			}
			continue
		}
		b, err := x.T.Receive(ctx, src, nil)
		if err != nil {
			return fmt.Errorf("bsp: superstep %d: get reply from process %d: %w", x.Superstep, src, err)
		}
		want := 0
		for _, i := range idx {
			want += st.Gets[i].Len
		}
		if len(b) != want {
			return fmt.Errorf("bsp: get reply from process %d: %d bytes, want %d", src, len(b), want)
		}
		for _, i := range idx {
			n := st.Gets[i].Len
			in.GetData[i], b = b[:n:n], b[n:]
			in.Stats.BytesIn += int64(n)
		}
	}
	return nil
}

func splitGets(b []byte, gets []Get, into [][]byte) [][]byte {
	for _, g := range gets {
		into = append(into, b[:g.Len:g.Len])
		b = b[g.Len:]
	}
	return into
}
