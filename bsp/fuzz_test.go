package bsp

import "testing"

// FuzzDecodeStep feeds the superstep decoder arbitrary messages (they come
// from other hosts): it must refuse or decode, never panic, and what it
// decodes must encode back to a message that decodes the same.
func FuzzDecodeStep(f *testing.F) {
	st := &Step{Pushes: 1, Pops: []int{0}, TagSize: 4, Tag: 2,
		Puts: []Put{{Pid: 1, Reg: 0, Off: 8, Data: []byte("abcdefgh")}},
		Gets: []Get{{Pid: 1, Reg: 0, Off: 0, Len: 8}},
		Msgs: []Message{{Pid: 1, Tag: []byte{1, 2}, Payload: []byte("hi")}}}
	f.Add(encodeStep(nil, st, 3, 2, 1))
	f.Add(encodeStep(nil, &Step{End: true}, 0, 1, 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decodeStep(b, 1)
		if err != nil {
			return
		}
		back := &Step{End: p.kind == kindEnd, Pushes: int(p.pushes), Pops: p.pops, TagSize: int(p.tagsize), Tag: int(p.tag)}
		for _, q := range p.puts {
			q.Pid = 0
			back.Puts = append(back.Puts, q)
		}
		for _, g := range p.gets {
			g.Pid = 0
			back.Gets = append(back.Gets, g)
		}
		for _, m := range p.msgs {
			m.Pid = 0
			back.Msgs = append(back.Msgs, m)
		}
		// Every entry to process 0, whatever nprocs the header claims (it
		// sizes nothing here: the exchanger's own count does).
		var pd perDest
		for i := range back.Puts {
			pd.puts = append(pd.puts, i)
		}
		for i := range back.Gets {
			pd.gets = append(pd.gets, i)
		}
		for i := range back.Msgs {
			pd.msgs = append(pd.msgs, i)
		}
		q, err := decodeStep(encodeFor(nil, back, pd, int(p.superstep), int(p.nprocs)), 1)
		if err != nil || len(q.puts) != len(p.puts) || len(q.gets) != len(p.gets) || len(q.msgs) != len(p.msgs) {
			t.Fatalf("re-encoded message: %v", err)
		}
	})
}
