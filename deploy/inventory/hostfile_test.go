package inventory

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseHostfile(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string // "name/slots ..."
		err  string // part of the error
	}{
		"open mpi":      {in: "# cluster\nnode1 slots=4\nnode2 slots=4 max_slots=8\nnode3\n", want: "node1/4 node2/4 node3/0"},
		"mpich":         {in: "n1:2\nn2:2   # fast one\nn3\n", want: "n1/2 n2/2 n3/0"},
		"mixed":         {in: "a slots=2\nb:3\n", want: "a/2 b/3"},
		"repeat adds":   {in: "a slots=2\na slots=3\n", want: "a/5"},
		"crlf, blanks":  {in: "\r\n  a slots=1\r\n\n", want: "a/1"},
		"empty":         {in: "# nothing\n", err: "no host"},
		"bad slots":     {in: "a slots=zero\n", err: "h:1:9: slots \"zero\""},
		"bad mpich":     {in: "ok\nb:0\n", err: "h:2:3: slots \"0\""},
		"unknown key":   {in: "a slots=1 gpus=2\n", err: "h:1:11: unknown hostfile key \"gpus\""},
		"no value":      {in: "a slots\n", err: "want key=value"},
		"bad host":      {in: "a/b slots=1\n", err: "bad host name"},
		"option host":   {in: "-oProxyCommand=x\n", err: "bad host name"},
		"huge":          {in: "a slots=99999999\n", err: "slots"},
		"too many sums": {in: strings.Repeat("a slots=65536\n", 2), err: "more than"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseHostfile("h", []byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, e := range got {
				s = append(s, e.Name+"/"+itoa(e.Slots))
			}
			if strings.Join(s, " ") != tc.want {
				t.Fatalf("got %v, want %s", s, tc.want)
			}
		})
	}
}

func TestImportHostfileIsAnInventory(t *testing.T) {
	entries, err := ParseHostfile("hosts", []byte("g-1 slots=4\ng-2 slots=4\ng-3 slots=2\ng-4\n"))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := Parse("imported.toml", ImportHostfile("hosts", "nancy", "graphene", entries))
	if err != nil {
		t.Fatal(err)
	}
	hs := inv.Hosts()
	if len(hs) != 4 || hs[0].Cores != 4 || hs[2].Cores != 2 || hs[3].Cores != 4 || hs[0].Site != "nancy" || hs[0].Cluster != "graphene" {
		t.Fatalf("imported hosts: %+v", hs)
	}
}

// FuzzParseHostfile: any input gives hosts or an error naming a line, never a
// panic; what parses imports into an inventory Parse accepts. Each input is
// also fed with a line split in two (as a partial read would).
func FuzzParseHostfile(f *testing.F) {
	for _, s := range []string{"node1 slots=4 max_slots=8\nnode2\n", "n1:2\nn2:4 # x\n", "a slots=1\na:2\n", "#\n\n", "x slots=\n", ":3\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		if i := bytes.IndexByte(data, '\n'); i > 0 {
			check(t, append(data[:i:i], append([]byte("\n"), data[i:]...)...))
		}
	})
}

func check(t *testing.T, data []byte) {
	entries, err := ParseHostfile("fuzz", data)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "deploy: fuzz:") {
			t.Fatalf("error without its place: %v", err)
		}
		return
	}
	if _, err := Parse("fuzz.toml", ImportHostfile("fuzz", "s", "c", entries)); err != nil {
		t.Fatalf("hostfile %q imports to an invalid inventory: %v", data, err)
	}
}
