package rmnp

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
)

// The link side of the gateways (spec.md §8): a gw:// address, a worker's
// route request to its site's gateway and the gateway's answer. The
// gateway itself (the relay) is the package rmnp/gateway.

// TypeRelay is the frame type of the gateway link (spec.md §8.3); only a
// gateway link carries it, and a gateway link carries no MSG.
const TypeRelay uint8 = 3

// RouteMagic starts a route request and its reply.
var RouteMagic = [4]byte{'R', 'M', 'G', 'W'}

// Route request and reply sizes and bounds (spec.md §8.1).
const (
	routeHeaderSize = 16
	routeReplySize  = 8
	routeVersion    = 1
	maxRouteAddr    = 255
)

// Route reply status codes (spec.md §8.1).
const (
	RouteOK uint8 = iota
	RouteBadRequest
	RouteNoPeer
	RouteRefused
	RouteUnreachable
	routeClosing
)

// RouteStatusText says what a route reply status means.
func RouteStatusText(s uint8) string {
	switch s {
	case RouteOK:
		return "ok"
	case RouteBadRequest:
		return "malformed route request"
	case RouteNoPeer:
		return "no link to the peer site's gateway"
	case RouteRefused:
		return "destination not in the peer gateway's run"
	case RouteUnreachable:
		return "the peer gateway cannot reach the destination"
	case routeClosing:
		return "gateway closing"
	}
	return fmt.Sprintf("status %d", s)
}

// RouteRequest is what a worker sends its gateway before the RMNP handshake:
// the peer site's gateway (Via, its name) and the destination's rmnp address
// behind it (To, tcp://host:port).
type RouteRequest struct {
	Via, To string
}

// Encode returns the request's bytes.
func (r RouteRequest) Encode() ([]byte, error) {
	if r.Via == "" || r.To == "" || len(r.Via) > maxRouteAddr || len(r.To) > maxRouteAddr {
		return nil, fmt.Errorf("%w: route via %q to %q: addresses must be 1 to %d bytes", ErrConfig, r.Via, r.To, maxRouteAddr)
	}
	b := make([]byte, routeHeaderSize, routeHeaderSize+len(r.Via)+len(r.To))
	copy(b, RouteMagic[:])
	b[4] = routeVersion
	binary.LittleEndian.PutUint16(b[6:8], uint16(len(r.Via)))
	binary.LittleEndian.PutUint16(b[8:10], uint16(len(r.To)))
	b = append(b, r.Via...)
	return append(b, r.To...), nil
}

// ReadRouteRequest reads and validates a route request.
func ReadRouteRequest(rd io.Reader) (RouteRequest, error) {
	var h [routeHeaderSize]byte
	if _, err := io.ReadFull(rd, h[:]); err != nil {
		return RouteRequest{}, fmt.Errorf("%w: route request: %w", ErrFrame, err)
	}
	if !bytes.Equal(h[:4], RouteMagic[:]) {
		return RouteRequest{}, fmt.Errorf("%w: route request: bad magic %q", ErrFrame, h[:4])
	}
	if h[4] != routeVersion || h[5] != 0 || !allZero(h[10:]) {
		return RouteRequest{}, fmt.Errorf("%w: route request: version %d or reserved bytes set", ErrFrame, h[4])
	}
	nv, nt := int(binary.LittleEndian.Uint16(h[6:8])), int(binary.LittleEndian.Uint16(h[8:10]))
	if nv == 0 || nt == 0 || nv > maxRouteAddr || nt > maxRouteAddr {
		return RouteRequest{}, fmt.Errorf("%w: route request: address lengths %d and %d", ErrFrame, nv, nt)
	}
	body := make([]byte, nv+nt)
	if _, err := io.ReadFull(rd, body); err != nil {
		return RouteRequest{}, fmt.Errorf("%w: route request: %w", ErrFrame, err)
	}
	r := RouteRequest{Via: string(body[:nv]), To: string(body[nv:])}
	if _, _, err := ParseAddr(r.To); err != nil {
		return RouteRequest{}, fmt.Errorf("%w: route request: %w", ErrFrame, err)
	}
	return r, nil
}

// RouteReply returns the reply bytes for status s.
func RouteReply(s uint8) []byte {
	b := make([]byte, routeReplySize)
	copy(b, RouteMagic[:])
	b[4] = s
	return b
}

// readRouteReply reads the gateway's reply and returns its status.
func readRouteReply(rd io.Reader) (uint8, error) {
	var b [routeReplySize]byte
	if _, err := io.ReadFull(rd, b[:]); err != nil {
		return 0, err
	}
	if !bytes.Equal(b[:4], RouteMagic[:]) || !allZero(b[5:]) {
		return 0, fmt.Errorf("%w: malformed route reply", ErrFrame)
	}
	return b[4], nil
}

// GatewayAddr is the rmnp address of a destination reached through gateway
// (its site-side address, "tcp://host:port"), then the peer gateway named
// via: the address Connect dials for such a link.
func GatewayAddr(gateway, via, to string) string {
	host := gateway
	if _, rest, ok := cutScheme(gateway); ok {
		host = rest
	}
	return "gw://" + host + "?" + url.Values{"via": {via}, "to": {to}}.Encode()
}

func cutScheme(a string) (string, string, bool) {
	s, rest, ok := bytes.Cut([]byte(a), []byte("://"))
	return string(s), string(rest), ok
}

// parseGatewayAddr splits a GatewayAddr into the gateway's TCP address and
// the route request.
func parseGatewayAddr(a string) (string, RouteRequest, error) {
	u, err := url.Parse(a)
	if err != nil || u.Scheme != "gw" || u.Host == "" {
		return "", RouteRequest{}, fmt.Errorf("%w: gateway address %q: want gw://host:port?via=NAME&to=ADDR", ErrConfig, a)
	}
	q := u.Query()
	r := RouteRequest{Via: q.Get("via"), To: q.Get("to")}
	if _, _, err := ParseAddr(r.To); err != nil || r.Via == "" {
		return "", RouteRequest{}, fmt.Errorf("%w: gateway address %q: bad via or to", ErrConfig, a)
	}
	return u.Host, r, nil
}

// dialGateway dials the gateway of address a and asks for its route; the
// connection returned then carries the RMNP handshake to the destination.
func dialGateway(ctx context.Context, a string) (net.Conn, error) {
	host, req, err := parseGatewayAddr(a)
	if err != nil {
		return nil, err
	}
	b, err := req.Encode()
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("gateway %s: %w", host, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if _, err := c.Write(b); err != nil {
		c.Close()
		return nil, fmt.Errorf("gateway %s: %w", host, err)
	}
	st, err := readRouteReply(c)
	if err == nil && st != RouteOK {
		err = fmt.Errorf("%w: gateway %s via %s to %s: %s", ErrUnreachableVia, host, req.Via, req.To, RouteStatusText(st))
	}
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			err = fmt.Errorf("gateway %s: %w", host, ctx.Err())
		}
		return nil, err
	}
	return c, nil
}

// ErrUnreachableVia is wrapped when a gateway could not open a route.
var ErrUnreachableVia = errors.New("rmnp: no route through the gateways")
