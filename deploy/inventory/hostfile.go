package inventory

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// maxSlots bounds the slots of one hostfile line.
const maxSlots = 1 << 16

// HostfileEntry is one host of an MPI hostfile with its slots (cores); zero
// slots means the hostfile did not say (all the host's cores).
type HostfileEntry struct {
	Name  string
	Slots int
}

// ParseHostfile reads an Open MPI hostfile ("host slots=N [max_slots=M]") or
// an MPICH one ("host:N"), the two forms also mixed, with # comments. A host
// listed again adds its slots, as both launchers do. Errors are
// "name:line:col: reason".
func ParseHostfile(name string, data []byte) ([]HostfileEntry, error) {
	var out []HostfileEntry
	index := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		text := string(line)
		if c := strings.IndexByte(text, '#'); c >= 0 {
			text = text[:c]
		}
		e, col, err := parseHostfileLine(text)
		if err != nil {
			return nil, fmt.Errorf("deploy: %s:%d:%d: %w", name, i+1, col+1, err)
		}
		if e.Name == "" {
			continue
		}
		if k, ok := index[e.Name]; ok {
			if out[k].Slots == 0 || e.Slots == 0 {
				out[k].Slots = 0 // "all its cores" stays all
			} else if out[k].Slots += e.Slots; out[k].Slots > maxSlots {
				return nil, fmt.Errorf("deploy: %s:%d:%d: %s has more than %d slots in all", name, i+1, col+1, e.Name, maxSlots)
			}
			continue
		}
		index[e.Name] = len(out)
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("deploy: %s: no host in the hostfile", name)
	}
	return out, nil
}

// parseHostfileLine parses one line without its comment; col is where an
// error is, 0-based.
func parseHostfileLine(text string) (HostfileEntry, int, error) {
	var e HostfileEntry
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return e, 0, nil
	}
	host := fields[0]
	col := strings.Index(text, host)
	if h, n, ok := strings.Cut(host, ":"); ok { // MPICH: host:N
		slots, err := slotCount(n)
		if err != nil {
			return e, col + len(h) + 1, err
		}
		host, e.Slots = h, slots
	}
	if err := checkHostName(host); err != nil {
		return e, col, err
	}
	e.Name = host
	for _, f := range fields[1:] {
		at := strings.Index(text, f)
		key, val, ok := strings.Cut(f, "=")
		if !ok {
			return e, at, fmt.Errorf("%q: want key=value (slots=N)", f)
		}
		switch key {
		case "slots", "cpu", "count":
			slots, err := slotCount(val)
			if err != nil {
				return e, at + len(key) + 1, err
			}
			e.Slots = slots
		case "max_slots", "max-slots":
			if _, err := slotCount(val); err != nil {
				return e, at + len(key) + 1, err
			}
		default:
			return e, at, fmt.Errorf("unknown hostfile key %q (want slots or max_slots)", key)
		}
	}
	return e, 0, nil
}

func slotCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxSlots {
		return 0, fmt.Errorf("slots %q: want a whole number from 1 to %d", s, maxSlots)
	}
	return n, nil
}

// checkHostName accepts DNS names and IPv4 addresses: what sites.toml and
// ssh take as a host.
func checkHostName(h string) error {
	if h == "" || strings.HasPrefix(h, "-") || strings.HasPrefix(h, ".") {
		return fmt.Errorf("bad host name %q", h)
	}
	for _, r := range h {
		ok := r == '-' || r == '.' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return fmt.Errorf("bad host name %q: %q is not allowed", h, r)
		}
	}
	return nil
}

// ImportHostfile turns hostfile entries into a sites.toml inventory: one site
// and one cluster holding every host, cores set to the most common slot
// count, and a per-host override for the hosts that differ.
func ImportHostfile(source, site, cluster string, entries []HostfileEntry) []byte {
	counts := map[int]int{}
	common := 0
	for _, e := range entries {
		counts[e.Slots]++
		if counts[e.Slots] > counts[common] || (counts[e.Slots] == counts[common] && e.Slots > common) {
			common = e.Slots
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Imported from the MPI hostfile %s by gridtui sites import.\n", strconv.Quote(source))
	b.WriteString("# SSH settings come from ~/.ssh/config (ssh -G); add [defaults] to override.\n\n")
	fmt.Fprintf(&b, "[[site]]\nname = %s\nlauncher = \"ssh\"\n\n  [[site.cluster]]\n  name = %s\n", strconv.Quote(site), strconv.Quote(cluster))
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = strconv.Quote(e.Name)
	}
	fmt.Fprintf(&b, "  hosts = [%s]\n", strings.Join(names, ", "))
	if common > 0 {
		fmt.Fprintf(&b, "  cores = %d\n", common)
	}
	for _, e := range entries {
		if e.Slots != common && e.Slots > 0 {
			fmt.Fprintf(&b, "\n    [[site.cluster.host]]\n    name = %s\n    cores = %d\n", strconv.Quote(e.Name), e.Slots)
		}
	}
	return b.Bytes()
}
