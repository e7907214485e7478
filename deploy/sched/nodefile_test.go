package sched

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseNodeFileErrors(t *testing.T) {
	tests := []struct {
		name, data string
		f          NodeFileFormat
		want       string
	}{
		{"empty", "\n\n", NodeFilePerSlot, "f: no host"},
		{"two fields", "a\n\nb c\n", NodeFilePerSlot, "f:3: \"b c\""},
		{"bad name", "a;rm\n", NodeFilePerSlot, "f:1: \"a;rm\" is not a host name"},
		{"dash name", "-oProxyCommand=x\n", NodeFilePerSlot, "f:1:"},
		{"pe short", "n1\n", NodeFilePE, "f:1:"},
		{"pe zero", "n1 0 q UNDEFINED\n", NodeFilePE, "f:1: host n1: slots \"0\""},
		{"pe too many", "n1 65536 q U\nn1 1 q U\n", NodeFilePE, "f:2: host n1: more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseNodeFile("f", []byte(tt.data), tt.f)
			if !errors.Is(err, ErrNodeFile) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want ErrNodeFile containing %q", err, tt.want)
			}
		})
	}
}

func FuzzParseNodeFile(f *testing.F) {
	for _, n := range []string{"oar_nodefile", "pe_hostfile", "pbs_nodefile", "pbs_bad", "pe_bad"} {
		data, err := os.ReadFile(filepath.Join("testdata", "nodefiles", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a\r\nb\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []NodeFileFormat{NodeFilePerSlot, NodeFilePE} {
			nodes, err := ParseNodeFile("f", data, format)
			if err != nil {
				if !errors.Is(err, ErrNodeFile) {
					t.Fatalf("error %v is not ErrNodeFile", err)
				}
				continue
			}
			seen := map[string]bool{}
			for _, n := range nodes {
				if checkNodeName(n.Name) != nil || n.Slots < 1 || n.Slots > maxSlots || seen[n.Name] {
					t.Fatalf("bad node %+v from %q", n, data)
				}
				seen[n.Name] = true
			}
		}
	})
}
