package rmnp

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Config configures an Endpoint. Start from DefaultConfig and fill RunID, Secret, Self
// and Listen.
type Config struct {
	// RunID identifies the run; a peer of another run is refused at handshake.
	RunID [16]byte
	// Secret is the per-run shared secret used for the HMAC challenge (at least 16
	// bytes). It is never sent on the wire nor logged.
	Secret []byte
	// Self is this worker's peer id.
	Self PeerID
	// Listen lists the addresses to listen on: "tcp://127.16.64.10:0",
	// "unix:///tmp/w3.sock". Port 0 picks a free port. May be empty for a dial-only
	// endpoint.
	Listen []string
	// Logger receives connection events (rejected handshakes, links down). Nil
	// discards them.
	Logger *slog.Logger
	// MaxFrame is the largest payload accepted or sent, in bytes.
	MaxFrame int
	// MaxBuffered bounds the bytes buffered per peer for messages that no Receive has
	// taken yet; beyond it the reader pauses and TCP pushes back on the sender.
	MaxBuffered int
	// DialTimeout bounds a dial plus the handshake, on both sides.
	DialTimeout time.Duration
	// HeartbeatInterval, if positive, makes every link send a PING when idle for that
	// long and declare the link dead after three intervals without any frame. Every
	// endpoint of a run must use the same interval (it is not negotiated).
	HeartbeatInterval time.Duration
	// AllowCompress lets peers that ask for it compress DATA on links this endpoint
	// accepts.
	AllowCompress bool
	// CloseTimeout bounds how long Close waits for queued messages to be written.
	CloseTimeout time.Duration
	// CongestionControl chooses the TCP congestion control of links (Linux):
	// CongestionAuto (the default) moves links of sub-millisecond round trip
	// off a pacing control such as BBR, whose bandwidth estimate can lock
	// large messages at half speed for the life of a connection, to cubic (or
	// reno); CongestionSystem keeps the kernel's choice; any other value is the
	// name of the control every TCP link asks for (the kernel may refuse it).
	CongestionControl string
	// MaxPendingHandshakes bounds the accepted connections whose handshake has not
	// ended; beyond it a new connection is closed at once. Zero means 256.
	MaxPendingHandshakes int
	// ReadPoll, if positive, makes a read that finds the socket empty wait
	// up to that long in a poll(2) of its own thread (Linux) before it
	// parks in the runtime's poller: the bytes then wake the very thread
	// that reads them. It is for a goroutine locked to its thread, as a
	// callback from C is (apps/exec's in-process programs), whose every
	// wake-up by the poller is a hand-off between two threads; a
	// cancellation or a deadline is seen within ReadPoll.
	ReadPoll time.Duration
	// MaxPendingPerSource bounds the pending handshakes from one source address
	// (all Unix-socket peers count as one), so that one host cannot take every
	// place. Zero means 64.
	MaxPendingPerSource int
}

// DefaultConfig returns a Config with the protocol defaults (64 MiB frames, 10 s dial
// timeout, no heartbeat, compression allowed when asked, 256 pending handshakes of
// which 64 from one address).
func DefaultConfig() Config {
	return Config{
		MaxFrame:      DefaultMaxFrame,
		MaxBuffered:   defaultMaxBuffered,
		DialTimeout:   DefaultDialTimeout,
		AllowCompress: true,
		CloseTimeout:  defaultCloseWait,

		MaxPendingHandshakes: defaultMaxPending,
		MaxPendingPerSource:  defaultMaxPendingPerSource,
	}
}

// validate checks cfg and fills zero values with defaults.
func (cfg *Config) validate() error {
	if len(cfg.Secret) < 16 {
		return fmt.Errorf("%w: secret shorter than 16 bytes", ErrConfig)
	}
	if cfg.MaxFrame == 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.MaxFrame < 0 || cfg.MaxFrame > 1<<31 {
		return fmt.Errorf("%w: MaxFrame %d out of range", ErrConfig, cfg.MaxFrame)
	}
	if cfg.MaxBuffered == 0 {
		cfg.MaxBuffered = defaultMaxBuffered
	}
	if cfg.MaxBuffered < cfg.MaxFrame {
		cfg.MaxBuffered = cfg.MaxFrame
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = defaultCloseWait
	}
	if cfg.MaxPendingHandshakes < 0 || cfg.MaxPendingPerSource < 0 {
		return fmt.Errorf("%w: negative MaxPendingHandshakes or MaxPendingPerSource", ErrConfig)
	}
	cfg.MaxPendingHandshakes = cmp.Or(cfg.MaxPendingHandshakes, defaultMaxPending)
	cfg.MaxPendingPerSource = cmp.Or(cfg.MaxPendingPerSource, defaultMaxPendingPerSource)
	if cfg.HeartbeatInterval < 0 {
		return fmt.Errorf("%w: negative HeartbeatInterval", ErrConfig)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	for _, a := range cfg.Listen {
		if _, _, err := ParseAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// ParseAddr splits "tcp://host:port" or "unix:///path" into a Go network and address.
func ParseAddr(a string) (network, address string, err error) {
	scheme, rest, ok := strings.Cut(a, "://")
	if !ok || rest == "" {
		return "", "", fmt.Errorf("%w: address %q: want tcp://host:port or unix:///path", ErrConfig, a)
	}
	switch scheme {
	case "tcp", "tcp4", "tcp6":
		if _, _, err := net.SplitHostPort(rest); err != nil {
			return "", "", fmt.Errorf("%w: address %q: %w", ErrConfig, a, err)
		}
		return scheme, rest, nil
	case "unix":
		return "unix", rest, nil
	}
	return "", "", fmt.Errorf("%w: address %q: unknown scheme %q", ErrConfig, a, scheme)
}

// FormatAddr renders a net.Addr in the scheme syntax of Config.Listen.
func FormatAddr(a net.Addr) string {
	switch a.Network() {
	case "unix":
		return "unix://" + a.String()
	default:
		return "tcp://" + a.String()
	}
}

// LinkOptions describe a link, chosen by the engine when it connects.
type LinkOptions struct {
	// Mode is the link's communication mode (Sync or Async).
	Mode Mode
	// Network labels the link's network in counters: "ethernet", "infiniband",
	// "unix"... at most 31 bytes.
	Network string
	// Compress asks for S2 compression of DATA (for inter-cluster links).
	Compress bool

	// maxVersion, if set, is the highest protocol version offered in the
	// handshake (tests play an older dialer with it).
	maxVersion uint8
}

func (o LinkOptions) validate() error {
	if o.Mode > Async {
		return fmt.Errorf("%w: mode %d", ErrConfig, o.Mode)
	}
	if o.maxVersion != 0 && (o.maxVersion < minVersion || o.maxVersion > ProtoVersion) {
		return fmt.Errorf("%w: protocol version %d", ErrConfig, o.maxVersion)
	}
	if len(o.Network) > 31 {
		return fmt.Errorf("%w: network label %q longer than 31 bytes", ErrConfig, o.Network)
	}
	return nil
}
