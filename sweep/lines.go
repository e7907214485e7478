package sweep

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ReadLines reads one instance per line of r, as GNU parallel's input
// lines: "name=value name=value …" (blank lines and lines starting with #
// are skipped). name is the file's name, for errors with their line;
// known, if not nil, says whether the application has a parameter.
func ReadLines(r io.Reader, name string, known func(string) bool) ([]map[string]string, error) {
	var out []map[string]string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p := map[string]string{}
		for _, kv := range strings.Fields(text) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return nil, fmt.Errorf("%w: %s:%d: %q: want name=value", ErrSweep, name, line, kv)
			}
			if known != nil && !known(k) {
				return nil, fmt.Errorf("%w: %s:%d: the application has no parameter %q", ErrSweep, name, line, k)
			}
			p[k] = v
		}
		if len(out) == MaxInstances {
			return nil, fmt.Errorf("%w: %s: more than %d instances: split the file", ErrSweep, name, MaxInstances)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrSweep, name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s: no instance (one name=value … per line)", ErrSweep, name)
	}
	return out, nil
}
