package deploy

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// DefaultSitesFile is the inventory looked for in the working directory.
const DefaultSitesFile = "sites.toml"

// EmbeddedSource is the Source of the embedded local-grid inventory.
const EmbeddedSource = "embedded"

// embeddedSites is the local grid used when there is no sites.toml: two
// clusters mirroring Table I of GRIDHPC on the loopback range.
//
//go:embed embedded.toml
var embeddedSites []byte

// Built-in defaults, used when neither the inventory nor the ssh
// configuration says.
const (
	defaultPort    = 22
	defaultWorkdir = ".gridtui"
)

// fileInventory is the TOML shape of sites.toml; Parse turns it into an
// Inventory. Field names are the keys a user writes.
type fileInventory struct {
	Example    bool         `toml:"example"`
	Locality   string       `toml:"locality"`
	PrefixBits int          `toml:"prefix_bits"`
	Defaults   fileDefaults `toml:"defaults"`
	Sites      []fileSite   `toml:"site"`
}

type fileDefaults struct {
	User           string   `toml:"user"`
	Port           int      `toml:"port"`
	IdentityFiles  []string `toml:"identity_files"`
	KnownHosts     string   `toml:"known_hosts"`
	Workdir        string   `toml:"workdir"`
	ConnectTimeout string   `toml:"connect_timeout"`
}

type fileSite struct {
	Name     string        `toml:"name"`
	Frontend string        `toml:"frontend"`
	Launcher string        `toml:"launcher"`
	User     string        `toml:"user"`
	Port     int           `toml:"port"`
	Workdir  string        `toml:"workdir"`
	Clusters []fileCluster `toml:"cluster"`
}

type fileCluster struct {
	Name     string `toml:"name"`
	Hosts    any    `toml:"hosts"` // a node-set string or an array of them
	Cores    int    `toml:"cores"`
	Ethernet string `toml:"ethernet"`
	Fast     string `toml:"fast"`
	// Local launcher only: N nodes from these first addresses.
	Nodes        int        `toml:"nodes"`
	EthernetAddr string     `toml:"ethernet_addr"`
	FastAddr     string     `toml:"fast_addr"`
	Host         []fileHost `toml:"host"` // per-host overrides
}

type fileHost struct {
	Name     string `toml:"name"`
	Cores    int    `toml:"cores"`
	User     string `toml:"user"`
	Port     int    `toml:"port"`
	Ethernet string `toml:"ethernet"`
	Fast     string `toml:"fast"`
}

// Load reads the inventory at path. An empty path means ./sites.toml when it
// exists and is not marked as an example, and the embedded local grid
// otherwise. An explicit path is always loaded, example or not.
func Load(path string) (*Inventory, error) {
	if path == "" {
		data, err := os.ReadFile(DefaultSitesFile)
		switch {
		case err == nil:
			inv, err := Parse(DefaultSitesFile, data)
			if err != nil || !inv.Example {
				return inv, err
			}
			emb := Embedded()
			emb.Notice = "./sites.toml is an example (example = true): using the embedded local grid; pass --sites sites.toml to use it"
			return emb, nil
		case errors.Is(err, fs.ErrNotExist):
			return Embedded(), nil
		default:
			return nil, fmt.Errorf("deploy: %w", err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("deploy: %w", err)
	}
	return Parse(path, data)
}

// Embedded returns the embedded local-grid inventory.
func Embedded() *Inventory {
	inv, err := Parse(EmbeddedSource, embeddedSites)
	if err != nil {
		panic("deploy: embedded inventory is invalid: " + err.Error())
	}
	return inv
}

// Parse decodes and validates an inventory. name is used in error messages
// (file:line:col). What the inventory leaves unsaid about SSH comes from the
// ssh configuration when connecting (see SSHResolver).
func Parse(name string, data []byte) (*Inventory, error) {
	var fi fileInventory
	if ps := tomlfile.Decode(data, &fi); ps != nil {
		errs := make([]error, len(ps))
		for i, p := range ps {
			errs[i] = fromProblem(name, data, p)
		}
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, errors.Join(errs...)
	}
	b := builder{file: name, data: data, seen: map[string]string{}, addrs: map[netip.Addr]string{}}
	inv, err := b.build(&fi)
	if err != nil {
		return nil, err
	}
	inv.Source = name
	inv.Example = fi.Example
	return inv, nil
}
