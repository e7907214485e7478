package rmnp

// Speculative reads. Through the read-ahead, a large message costs a read of the
// header with the first readBuffer bytes, a copy of those, and a second read for the
// rest. A Receive reading its own link with a posted buffer can instead predict that
// the next frame is like the last one (same kind, same size S): one readv puts the
// header in the header, its pad in the pad buffer and the next S bytes straight
// into the posted buffer. If the frame is not the predicted one, the bytes are put
// back in front of the read-ahead and the frame takes the normal path.

// specMin is the smallest predicted payload worth a speculative read.
const specMin = readBuffer

// readSpeculative tries one speculative read for r. handled reports whether it read
// (and dispatched) a frame; if not, nothing was consumed from the stream.
func (l *link) readSpeculative(r *receiveOp) (handled bool, err error) {
	fr, pr := l.fr, r.pr
	predicted := l.lastPayload[r.idx]
	if !l.sock.ok() || fr.buffered() > 0 || predicted < specMin || predicted > len(pr.buf) || l.info.compress {
		return false, nil
	}
	// The predicted frame is laid out as the sender writes it: header, pad,
	// payload. Its pad goes to the reader's pad buffer. Nothing beyond the
	// predicted frame is read: when frames follow each other (streaming), the
	// next one then starts the next read and is predicted in turn, instead of
	// its first bytes landing in the read-ahead and being copied from there
	// (the TCP 64 KiB stream in docs/bench/rmnp.md).
	padN := padFor(fr.Version, TypeMsg, uint32(predicted))
	var n int
	for {
		n, err = l.sock.readv(fr.hdr[:], fr.pad[:padN], pr.buf[:predicted])
		if err == nil {
			break
		}
		if isTimeout(err) {
			again, rerr := fr.retry(true)
			if again {
				continue
			}
			if rerr != nil {
				return true, rerr
			}
		}
		return true, err
	}
	if n < HeaderSize {
		fr.r, fr.w = 0, 0
		fr.unread(fr.hdr[:n])
		return false, nil
	}
	rest := n - HeaderSize
	inPad := min(rest, padN)
	inPosted := min(rest-inPad, predicted)
	fr.r, fr.w = 0, rest-inPad-inPosted
	h := &fr.hdr
	if err := fr.check(h); err != nil {
		return true, err
	}
	if h.Pad() != inPad {
		// Another pad than predicted, or not all of it in: put the bytes back
		// in stream order (unread prepends) and take the normal path.
		fr.unread(pr.buf[:inPosted])
		fr.unread(fr.pad[:inPad])
		if err := fr.skipPad(h); err != nil {
			return true, err
		}
		return true, l.dispatch(h, false)
	}
	if err := checkPad(fr.pad[:inPad]); err != nil {
		return true, err
	}
	size := int(h.Length())
	p, ib := l.p, r.ib
	p.mu.Lock()
	mine := h.Typ() == TypeMsg && kindIndex(h.kind()) == r.idx && h.Flags()&WireCompressed == 0 &&
		size <= len(pr.buf) && len(ib.q) == 0 && ib.posted == pr && !pr.claimed && !pr.completed
	if mine && size <= inPosted {
		// The whole frame came with the readv (the usual case): finish it in
		// the same critical section.
		pr.claimed, pr.link = true, l // claimed stays set, as in deliverPosted
		l.finishSpeculative(r, h, inPosted)
		p.mu.Unlock()
		return true, nil
	}
	if mine {
		pr.claimed, pr.link = true, l
	}
	p.mu.Unlock()
	if !mine {
		fr.unread(pr.buf[:inPosted])
		return true, l.dispatch(h, false)
	}
	return true, l.completeSpeculative(r, h, inPosted)
}

// completeSpeculative finishes a predicted frame whose first inPosted payload bytes
// are in the posted buffer (claimed by r) and whose rest is still to be read.
func (l *link) completeSpeculative(r *receiveOp, h *Header, inPosted int) error {
	pr, p := r.pr, l.p
	size := int(h.Length())
	err := l.fr.ReadFull(pr.buf[inPosted:size], false)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		pr.claimed = false
		Signal(pr.done)
		return err
	}
	l.finishSpeculative(r, h, size)
	return nil
}

// finishSpeculative completes r's posting with the predicted frame h, whose payload
// is in the posted buffer; bytes read past it (inPosted beyond the payload) go back
// to the read-ahead. Called with p.mu held.
func (l *link) finishSpeculative(r *receiveOp, h *Header, inPosted int) {
	size := int(h.Length())
	if size < inPosted {
		l.fr.unread(r.pr.buf[size:inPosted])
	}
	l.c.bytesRecv.Add(h.Size())
	l.lastPayload[r.idx] = size
	l.c.specHits.Add(1)
	l.p.completePosted(l, h, r.pr)
}
