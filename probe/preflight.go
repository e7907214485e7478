package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// DefaultPreflightTimeout bounds one pre-flight dial when the caller gives no
// timeout.
const DefaultPreflightTimeout = 2 * time.Second

// ErrUnreachable is wrapped by Preflight's error when no candidate network of
// a pair answers.
var ErrUnreachable = errors.New("unreachable on every network")

// ErrNotTCP is returned by DialTCP for a route that is not over IP.
var ErrNotTCP = errors.New("route is not over IP")

// Preflight checks, before a run, that a pair of nodes can reach each other:
// it dials the candidates in order (best first, as Candidates returns them),
// each with its own timeout, and returns the first that answers. Every
// candidate that failed before it yields a warning naming the pair, network
// and addresses. When none answers the error names the pair and every
// address tried and wraps ErrUnreachable and each dial error; the run must not
// start. If ctx ends, Preflight stops at once and returns ctx's error.
func Preflight(ctx context.Context, candidates []Route, dial func(ctx context.Context, r Route) error, timeout time.Duration) (chosen Route, warnings []string, err error) {
	if len(candidates) == 0 {
		return Route{}, nil, fmt.Errorf("probe: preflight: no candidate route: %w", ErrNoRoute)
	}
	if timeout <= 0 {
		timeout = DefaultPreflightTimeout
	}
	var errs []error
	for i, r := range candidates {
		dctx, cancel := context.WithTimeout(ctx, timeout)
		derr := dial(dctx, r)
		cancel()
		if derr == nil {
			return r, warnings, nil
		}
		if ctx.Err() != nil {
			return Route{}, warnings, fmt.Errorf("probe: preflight %s ↔ %s: %w", r.A, r.B, ctx.Err())
		}
		what := fmt.Sprintf("%s %s ↔ %s", r.Network, r.AAddr, r.BAddr)
		errs = append(errs, fmt.Errorf("%s: %w", what, derr))
		if i+1 < len(candidates) {
			next := candidates[i+1]
			via := ""
			if next.Via != "" {
				via = " via " + next.Via
			}
			warnings = append(warnings, fmt.Sprintf("%s ↔ %s: %s unreachable (%v), falling back to %s %s ↔ %s%s",
				r.A, r.B, what, derr, next.Network, next.AAddr, next.BAddr, via))
		}
	}
	first := candidates[0]
	return Route{}, warnings, &unreachableError{
		msg:  fmt.Sprintf("probe: preflight %s ↔ %s: %v: %s", first.A, first.B, ErrUnreachable, joinErrs(errs)),
		errs: errs,
	}
}

// unreachableError keeps Preflight's message on one line while still letting
// errors.Is and errors.As see ErrUnreachable and every dial error.
type unreachableError struct {
	msg  string
	errs []error
}

func (e *unreachableError) Error() string { return e.msg }

func (e *unreachableError) Unwrap() []error { return append([]error{ErrUnreachable}, e.errs...) }

func joinErrs(errs []error) string {
	s := make([]string, len(errs))
	for i, e := range errs {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}

// DialTCP opens and closes a TCP connection from r.AAddr to r.BAddr:port, the
// simplest pre-flight check of an IP route: binding the source address proves
// A owns it, the connection proves B listens there. A Unix route fails with
// ErrNotTCP (the caller checks its socket itself).
func DialTCP(ctx context.Context, r Route, port int) error {
	src, err1 := netip.ParseAddr(r.AAddr)
	dst, err2 := netip.ParseAddr(r.BAddr)
	if r.Network == Unix || err1 != nil || err2 != nil {
		return fmt.Errorf("probe: dial %s ↔ %s over %s (%s ↔ %s): %w", r.A, r.B, r.Network, r.AAddr, r.BAddr, ErrNotTCP)
	}
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: src.AsSlice()}}
	addr := net.JoinHostPort(dst.String(), strconv.Itoa(port))
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("probe: %s → %s: %w", r.A, r.B, err) // err names both addresses
	}
	return c.Close()
}
