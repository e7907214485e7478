package inventory

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

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
// configuration says: the SSH port and a host's work directory (relative
// to the home directory).
const (
	DefaultPort    = 22
	DefaultWorkdir = ".gridtui"
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
	Batch    *fileBatch    `toml:"batch"`
	Owner    *fileOwner    `toml:"owner"`
	Clusters []fileCluster `toml:"cluster"`
	Gateways []fileGateway `toml:"gateway"`
}

type fileGateway struct {
	Host    string `toml:"host"`
	Address string `toml:"address"`
	Ports   []int  `toml:"ports"`
}

// fileBatch is [site.batch]: how a batch launcher asks for allocations.
type fileBatch struct {
	Partition  string   `toml:"partition"`
	Queue      string   `toml:"queue"` // OAR's, PBS's and Grid Engine's word for partition
	Account    string   `toml:"account"`
	TimeLimit  string   `toml:"time_limit"`
	Properties string   `toml:"properties"`
	Options    []string `toml:"options"`
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
	Owner        *fileOwner `toml:"owner"`
	Host         []fileHost `toml:"host"` // per-host overrides
}

type fileHost struct {
	Owner    *fileOwner `toml:"owner"`
	Name     string     `toml:"name"`
	Cores    int        `toml:"cores"`
	User     string     `toml:"user"`
	Port     int        `toml:"port"`
	Ethernet string     `toml:"ethernet"`
	Fast     string     `toml:"fast"`
}

// SitesEnv is the environment variable naming the inventory to use when no
// path is given.
const SitesEnv = "GRIDTUI_SITES"

// Load reads the inventory at path. An explicit path is always loaded,
// example or not. An empty path means, in this order: the file $GRIDTUI_SITES
// names; ./sites.toml; $XDG_CONFIG_HOME/gridtui/sites.toml
// (~/.config/gridtui/sites.toml); the allocation of a batch scheduler
// gridtui runs in (AllocationInventory); the embedded local grid. Files marked as
// examples are skipped in that search. Inventory.Notice says which file was
// used when it is not ./sites.toml or the embedded grid, and why an example
// was skipped.
func Load(path string) (*Inventory, error) {
	if path != "" {
		return loadFile(path, "")
	}
	if p := os.Getenv(SitesEnv); p != "" {
		inv, err := loadFile(p, "$"+SitesEnv+": ")
		if err != nil {
			return nil, err
		}
		inv.Notice = "inventory " + p + " (from $" + SitesEnv + ")"
		return inv, nil
	}
	inv, skipped, err := loadDefault(DefaultSitesFile)
	if inv != nil || err != nil {
		return inv, err
	}
	var notes []string
	if skipped {
		notes = append(notes, "./sites.toml is an example (example = true)")
	}
	if user := UserSitesFile(); user != "" {
		inv, uskipped, err := loadDefault(user)
		if err != nil {
			return nil, err
		}
		if inv != nil {
			why := "no ./sites.toml here"
			if skipped {
				why = notes[0]
			}
			inv.Notice = "inventory " + user + " (" + why + ")"
			return inv, nil
		}
		if uskipped {
			notes = append(notes, user+" is an example (example = true)")
		}
	}
	if inv, err := inAllocation(); inv != nil || err != nil {
		return inv, err
	}
	emb := Embedded()
	if len(notes) > 0 {
		emb.Notice = strings.Join(notes, ", ") + ": using the embedded local grid; pass --sites FILE to use one"
	}
	return emb, nil
}

// UserSitesFile is the user's inventory: sites.toml in gridtui's directory
// under $XDG_CONFIG_HOME (~/.config), or "" when there is no such directory.
func UserSitesFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "gridtui", DefaultSitesFile)
}

// loadFile reads and parses the inventory at path. via, when not empty,
// says how the path was chosen ("$GRIDTUI_SITES: "); it follows the
// package's prefix, which every error carries once.
func loadFile(path, via string) (*Inventory, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("deploy: %s%w", via, err)
	}
	inv, err := Parse(path, data)
	if err != nil && via != "" {
		return nil, fmt.Errorf("deploy: %s%w", via, err)
	}
	return inv, err
}

// loadDefault loads path if it exists and is not an example: nil and false
// when it does not exist, nil and true when it is an example.
func loadDefault(path string) (inv *Inventory, example bool, err error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("deploy: %w", err)
	}
	inv, err = Parse(path, data)
	if err != nil {
		return nil, false, err
	}
	if inv.Example {
		return nil, true, nil
	}
	return inv, false, nil
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
