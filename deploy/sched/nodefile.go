package sched

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrNodeFile is wrapped by every error about a scheduler's node file.
var ErrNodeFile = errors.New("bad node file")

// maxSlots bounds the slots of one node.
const maxSlots = 1 << 16

// NodeFileFormat says how a scheduler writes the nodes of an allocation in
// the file its jobs find in their environment.
type NodeFileFormat int

// Node file formats.
const (
	// NodeFilePerSlot is one host name per line, once per slot (core) the
	// job holds there: OAR's $OAR_NODEFILE, PBS's and Torque's
	// $PBS_NODEFILE.
	NodeFilePerSlot NodeFileFormat = iota
	// NodeFilePE is Grid Engine's $PE_HOSTFILE: "host slots queue
	// processor-range" per line ("n1.example 4 all.q@n1.example UNDEFINED").
	NodeFilePE
)

// ParseNodeFile reads the nodes of an allocation from a node file's
// contents: the hosts in the order they first appear, with their slots
// summed. Blank lines are skipped; anything else that is not a host name
// (and, for Grid Engine, its slots) is an error naming file:line.
func ParseNodeFile(file string, data []byte, f NodeFileFormat) ([]AllocNode, error) {
	var nodes []AllocNode
	at := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		name, slots, err := nodeFileLine(s, f)
		if err != nil {
			return nil, fmt.Errorf("%w %s:%d: %v", ErrNodeFile, file, i+1, err)
		}
		if j, ok := at[name]; ok {
			if nodes[j].Slots+slots > maxSlots {
				return nil, fmt.Errorf("%w %s:%d: host %s: more than %d slots", ErrNodeFile, file, i+1, name, maxSlots)
			}
			nodes[j].Slots += slots
			continue
		}
		at[name] = len(nodes)
		nodes = append(nodes, AllocNode{Name: name, Slots: slots})
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w %s: no host", ErrNodeFile, file)
	}
	return nodes, nil
}

// nodeFileLine parses one non-blank line.
func nodeFileLine(s string, f NodeFileFormat) (string, int, error) {
	fields := strings.Fields(s)
	if f == NodeFilePerSlot {
		if len(fields) != 1 {
			return "", 0, fmt.Errorf("%q: want one host name per line", s)
		}
		return fields[0], 1, checkNodeName(fields[0])
	}
	if len(fields) < 2 {
		return "", 0, fmt.Errorf("%q: want \"host slots queue processors\"", s)
	}
	if err := checkNodeName(fields[0]); err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil || n < 1 || n > maxSlots {
		return "", 0, fmt.Errorf("host %s: slots %q is not a number between 1 and %d", fields[0], fields[1], maxSlots)
	}
	return fields[0], n, nil
}

// checkNodeName accepts a host name as schedulers write them: letters,
// digits, '.', '-' and '_' (RFC 1123 and the clusters that ignore it).
func checkNodeName(name string) error {
	if len(name) > 253 {
		return fmt.Errorf("host name of %d bytes", len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			return fmt.Errorf("%q is not a host name", name)
		}
	}
	if name[0] == '-' || name[0] == '.' {
		return fmt.Errorf("%q is not a host name", name)
	}
	return nil
}

// InsideNodeFile is the Inside of a scheduler whose jobs find their nodes in
// a file: job and file are the values of its environment variables (the
// first set of each list); source names the variable.
func InsideNodeFile(getenv func(string) string, jobVars, fileVars []string, f NodeFileFormat) (Allocation, bool, error) {
	job, file, source := "", "", ""
	for _, v := range jobVars {
		if job = getenv(v); job != "" {
			break
		}
	}
	for _, v := range fileVars {
		if file = getenv(v); file != "" {
			source = "$" + v
			break
		}
	}
	if file == "" {
		return Allocation{}, false, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return Allocation{}, false, fmt.Errorf("%s: %w", source, err)
	}
	nodes, err := ParseNodeFile(file, data, f)
	if err != nil {
		return Allocation{}, false, err
	}
	return Allocation{Job: job, Source: source + " (" + file + ")", Nodes: nodes}, true, nil
}
