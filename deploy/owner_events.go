package deploy

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

// OwnerLine starts the lines a worker prints on stdout after its hello to
// report its owner policy's decisions ("owner: 20:05:00 suspend: owner's
// CPU load 0.70 ≥ owner_cpu_busy 0.50 for 2m0s"): the worker governs its
// own part on its host (package owner), whichever launcher started it, and
// the console shows each decision as an Event of PhaseOwner.
const OwnerLine = "owner: "

// WriteOwnerLine prints one decision (its text, and the error of applying
// it when there was one) for the console.
func WriteOwnerLine(w io.Writer, text string, err error) error {
	text = strings.ReplaceAll(text, "\n", " ")
	if err != nil {
		text += " (" + strings.ReplaceAll(err.Error(), "\n", " ") + ")"
	}
	if _, werr := fmt.Fprintf(w, "%s%s\n", OwnerLine, text); werr != nil {
		return fmt.Errorf("deploy: write owner line: %w", werr)
	}
	return nil
}

// ownerWriter takes a worker's stdout after its hello: it keeps the tail
// (a gateway's counters) and turns every owner line into an Event.
type ownerWriter struct {
	w    *Worker
	ev   *emitter
	line []byte
}

// ownerEvents is where a worker's stdout goes after its hello.
func ownerEvents(w *Worker, ev *emitter) io.Writer { return &ownerWriter{w: w, ev: ev} }

func (o *ownerWriter) Write(p []byte) (int, error) {
	if o.w.stdout != nil {
		o.w.stdout.Write(p)
	}
	o.line = append(o.line, p...)
	for {
		i := bytes.IndexByte(o.line, '\n')
		if i < 0 {
			break
		}
		if text, ok := bytes.CutPrefix(o.line[:i], []byte(OwnerLine)); ok {
			o.ev.emit(o.w.Host.Name, PhaseOwner, 1, string(text), nil)
		}
		o.line = o.line[i+1:]
	}
	if len(o.line) > maxLine { // not a line of ours: drop it
		o.line = o.line[:0]
	}
	return len(p), nil
}
