package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// documentedPaths reads the key paths docs/JSON.md names in its tables
// ("| `report.nodes[].rank` |"); maps ("report.spec.params{}") in the
// second set.
func documentedPaths(t *testing.T) (paths, maps map[string]bool) {
	t.Helper()
	data, err := os.ReadFile("../docs/JSON.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z_.\\[\\]{}0-9]+)` \\|")
	paths, maps = map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if m := row.FindStringSubmatch(sc.Text()); m != nil {
			if p, ok := strings.CutSuffix(m[1], "{}"); ok {
				maps[p] = true
				paths[p] = true
				continue
			}
			paths[strings.TrimSuffix(m[1], "[]")] = true
		}
	}
	return paths, maps
}

// documented reports whether the reference names path, or keys inside it
// (an object it does not describe on a line of its own).
func documented(path string, paths map[string]bool) bool {
	if paths[path] {
		return true
	}
	for p := range paths {
		if strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[]") {
			return true
		}
	}
	return false
}

// undocumented returns the key paths of v under prefix that the reference
// does not name, the keys of its maps aside.
func undocumented(v any, prefix string, paths, maps map[string]bool) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if maps[prefix] {
			return nil
		}
		for k, e := range v {
			p := prefix + "." + k
			if !documented(p, paths) {
				out = append(out, p)
			}
			out = append(out, undocumented(e, p, paths, maps)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, undocumented(e, prefix+"[]", paths, maps)...)
		}
	}
	return out
}

// TestRunJSONMatchesReference runs a short job with --json, and one whose
// wall time runs out while starting, and checks every key they print
// against docs/JSON.md: each is named there, an unknown gain is null, and
// the failed start ends in an error event.
func TestRunJSONMatchesReference(t *testing.T) {
	paths, maps := documentedPaths(t)
	if len(paths) < 50 {
		t.Fatalf("docs/JSON.md names %d paths", len(paths))
	}
	run := func(args ...string) []map[string]any {
		var out bytes.Buffer
		root := newRootCmd()
		root.SetOut(&out)
		root.SetErr(new(bytes.Buffer))
		root.SetArgs(append([]string{"run", "--json", "--no-record"}, args...))
		_ = root.Execute()
		var events []map[string]any
		dec := json.NewDecoder(&out)
		for dec.More() {
			var ev map[string]any
			if err := dec.Decode(&ev); err != nil {
				t.Fatalf("not JSON lines: %v", err)
			}
			events = append(events, ev)
		}
		return events
	}
	seen := map[string]bool{}
	for _, ev := range append(run("--n", "8", "--nodes", "2", "--scheme", "sync"), run("--nodes", "2", "--wall-time", "1ms")...) {
		kind, _ := ev["event"].(string)
		seen[kind] = true
		for _, p := range undocumented(ev["data"], kind, paths, maps) {
			t.Errorf("%s event: key %s is not in docs/JSON.md", kind, p)
		}
		if kind == "report" {
			data := ev["data"].(map[string]any)
			if g, ok := data["gain"]; !ok || g != nil {
				t.Errorf("report gain without a reference = %v, want null", g)
			}
		}
	}
	for _, k := range []string{"log", "snapshot", "report", "error"} {
		if !seen[k] {
			t.Errorf("no %s event", k)
		}
	}
}
