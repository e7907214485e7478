package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gridtui/gridtui/owner"
	"github.com/gridtui/gridtui/probe"
)

// maxLine bounds the boot and hello lines: both are small JSON objects, and a
// peer that sends more is broken or hostile.
const maxLine = 64 << 10

// minSecret is the shortest run secret a worker accepts (128 bits).
const minSecret = 16

// Sentinel errors of the boot/hello exchange.
var (
	// ErrLineTooLong is returned when a boot or hello line exceeds 64 KiB.
	ErrLineTooLong = errors.New("deploy: line too long")
	// ErrBadBoot is wrapped by every validation failure of a Boot.
	ErrBadBoot = errors.New("deploy: bad boot")
	// ErrBadHello is wrapped by every validation failure of a Hello.
	ErrBadHello = errors.New("deploy: bad hello")
)

// Boot is what the console writes to a worker's stdin as one JSON line. The run
// secret travels only here — never on a command line, where ps would show it.
type Boot struct {
	// Node is the worker's node name in the inventory ("alpha-1", "node-3.lyon").
	Node string
	// RunID identifies the run; RMNP handshakes carry it.
	RunID [16]byte
	// Secret is the per-run key of the RMNP HMAC challenge.
	Secret []byte
	// Listen lists the RMNP listen addresses ("tcp://127.16.64.10:0",
	// "unix:///tmp/x.sock"); empty means the worker chooses from its NICs.
	Listen []string
	// Ethernet and Fast are interface-name hints ("eth0", "ib0").
	Ethernet, Fast string
	// Cores is the number of cores the worker may use (0 = all).
	Cores int
	// Cluster is the worker's cluster name.
	Cluster string
	// LogFile is where the worker logs ("" = stderr).
	LogFile string
	// Role is "" for a worker, RoleGateway for a gateway (`gridtui gateway`,
	// which then reads its peers as a second line after its hello).
	Role string `json:",omitempty"`
	// Owner is the host's owner policy (Host.Owner), which the worker
	// applies to its own part on its host (package owner); nil: none.
	Owner *owner.Policy `json:",omitempty"`
}

// RoleGateway is the Role of a gateway's boot.
const RoleGateway = "gateway"

// subcommand is the gridtui subcommand that reads this boot.
func (b Boot) subcommand() string {
	if b.Role == RoleGateway {
		return "gateway"
	}
	return "worker"
}

// Hello is the worker's first stdout line (JSON): who and where it is.
type Hello struct {
	Node    string
	Host    string // hostname
	PID     int
	Version string
	OS      string
	Arch    string
	Cores   int
	NICs    []probe.NIC
	// Listen holds the actual RMNP addresses, with real ports.
	Listen []string
	// Load is the host's 1-minute load average when the worker started
	// (the console's Sites view shows it for SSH hosts); nil when unknown.
	Load *float64 `json:",omitempty"`
	// Memory is the memory in bytes the worker could use when it started:
	// the host's available memory, or what its control group's limit leaves
	// if that is less. The console checks a job's parts against it before
	// sending them (the nodes of one host share it); 0 when unknown.
	Memory uint64 `json:",omitempty"`
}

// Validate reports the first problem of b, wrapping ErrBadBoot.
func (b Boot) Validate() error {
	switch {
	case b.Node == "":
		return fmt.Errorf("%w: empty node name", ErrBadBoot)
	case b.RunID == [16]byte{}:
		return fmt.Errorf("%w: node %s: zero run id", ErrBadBoot, b.Node)
	case len(b.Secret) < minSecret:
		return fmt.Errorf("%w: node %s: secret of %d bytes, want at least %d", ErrBadBoot, b.Node, len(b.Secret), minSecret)
	case b.Role != "" && b.Role != RoleGateway:
		return fmt.Errorf("%w: node %s: unknown role %q", ErrBadBoot, b.Node, b.Role)
	case b.Cores < 0:
		return fmt.Errorf("%w: node %s: negative cores %d", ErrBadBoot, b.Node, b.Cores)
	}
	for _, a := range b.Listen {
		if !strings.HasPrefix(a, "tcp://") && !strings.HasPrefix(a, "unix://") {
			return fmt.Errorf("%w: node %s: listen address %q: want tcp:// or unix://", ErrBadBoot, b.Node, a)
		}
	}
	return nil
}

// readLine reads one '\n'-terminated line byte by byte, so that nothing after
// the line is consumed from r (the worker keeps reading stdin to see EOF).
func readLine(r io.Reader) ([]byte, error) {
	var line []byte
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return line, nil
			}
			if len(line) >= maxLine {
				return nil, ErrLineTooLong
			}
			line = append(line, one[0])
			continue
		}
		if err == io.EOF {
			if len(line) == 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadBoot reads and validates the one-line JSON Boot a worker receives on
// stdin. It consumes nothing after the line.
func ReadBoot(r io.Reader) (Boot, error) {
	var b Boot
	line, err := readLine(r)
	if err != nil {
		return b, fmt.Errorf("deploy: read boot from stdin: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Boot{}, fmt.Errorf("%w: stdin: %w", ErrBadBoot, err)
	}
	if err := b.Validate(); err != nil {
		return Boot{}, err
	}
	return b, nil
}

// WriteBoot writes b as one JSON line (the console side of ReadBoot).
func WriteBoot(w io.Writer, b Boot) error {
	return writeJSONLine(w, b, "boot")
}

// WriteHello writes h as one JSON line on w (the worker's stdout).
func WriteHello(w io.Writer, h Hello) error {
	return writeJSONLine(w, h, "hello")
}

func writeJSONLine(w io.Writer, v any, what string) error {
	buf, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("deploy: encode %s: %w", what, err)
	}
	if _, err := w.Write(append(buf, '\n')); err != nil {
		return fmt.Errorf("deploy: write %s: %w", what, err)
	}
	return nil
}

// ReadHello reads the worker's first stdout line and checks that it is a Hello
// from the expected node.
func ReadHello(r io.Reader, node string) (Hello, error) {
	var h Hello
	line, err := readLine(r)
	if err != nil {
		return h, fmt.Errorf("deploy: read hello of %s: %w", node, err)
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return Hello{}, fmt.Errorf("%w: node %s: %w (line %.80q)", ErrBadHello, node, err, line)
	}
	if h.Node != node {
		return Hello{}, fmt.Errorf("%w: node %s answered as %q", ErrBadHello, node, h.Node)
	}
	if h.PID <= 0 {
		return Hello{}, fmt.Errorf("%w: node %s: pid %d", ErrBadHello, node, h.PID)
	}
	return h, nil
}
