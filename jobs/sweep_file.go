package jobs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/internal/tomlfile"
)

// sweepSection reads a job file's [sweep]: each key an array of values
// (n = [32, 48, 64]), a range as a string (eps = "1e-6:1e-9:x10"), or
// "@FILE", a file of values one per line (relative to the job file). The
// axes keep the file's order. Every mistake is at its key (file:line:col).
func sweepSection(file string, data []byte, raw map[string]any) (*Sweep, error) {
	if raw == nil {
		return nil, nil
	}
	pos := tomlfile.Positions(data)
	sw := &Sweep{}
	for name, v := range raw {
		key := "sweep." + name
		at := func(msg string) error { return keyError(file, data, key, msg) }
		var vals []string
		switch v := v.(type) {
		case []any:
			if len(v) == 0 {
				return nil, at(fmt.Sprintf("sweep: %s has an empty list of values", name))
			}
			for _, e := range v {
				s, ok := scalarText(e)
				if !ok {
					return nil, at(fmt.Sprintf("sweep: %s: want strings, numbers or booleans in the list, not %s", name, tomlKind(e)))
				}
				vals = append(vals, s)
			}
		case string:
			var err error
			if vals, err = sweepString(file, v); err != nil {
				return nil, at(fmt.Sprintf("sweep: %s: %v", name, strings.TrimPrefix(err.Error(), ErrSweep.Error()+": ")))
			}
		default:
			return nil, at(fmt.Sprintf("sweep: %s: want a list ([32, 48, 64]), a range (\"8:64:x2\") or \"@FILE\"", name))
		}
		sw.Axes = append(sw.Axes, SweepAxis{Name: name, Values: vals})
	}
	slices.SortFunc(sw.Axes, func(a, b SweepAxis) int {
		pa, pb := pos["sweep."+a.Name], pos["sweep."+b.Name]
		if pa[0] != pb[0] {
			return pa[0] - pb[0]
		}
		return strings.Compare(a.Name, b.Name)
	})
	return sw, nil
}

// checkSweepAt checks a job file's [sweep] against its job (CheckSweep),
// a mistake at its key in the file.
func checkSweepAt(file string, data []byte, s Spec) error {
	err := s.CheckSweep()
	var fe *fieldError
	if errors.As(err, &fe) {
		return keyError(file, data, fe.path, fe.msg)
	}
	return err
}

// sweepString reads a string value of [sweep]: a range or @FILE.
func sweepString(jobFile, v string) ([]string, error) {
	if name, ok := strings.CutPrefix(v, "@"); ok {
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(jobFile), name)
		}
		return ReadSweepLines(name)
	}
	if !IsRange(v) {
		return nil, fmt.Errorf("%q is not a range (START:STOP[:STEP], e.g. \"8:64:x2\"); a list is an array: [\"a\", \"b\"]", v)
	}
	return ParseRange(v)
}

// ReadSweepLines reads a file of values, one per line, as GNU parallel's
// "::::" does: trailing blanks and a \r are dropped; blank lines and lines
// starting with # are skipped. A file with no value is an error naming it.
func ReadSweepLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrSweep, path, err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: read %s: %w", ErrSweep, path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s holds no value (one per line; blank lines and # comments skipped)", ErrSweep, path)
	}
	return out, nil
}

// scalarText is a TOML scalar as the text gridapp.Parse reads.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case int64:
		return strconv.FormatInt(v, 10), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// sweepTable is a sweep as FormatSpec writes [sweep]: every axis as its
// list of values, strings as gridtui writes params. The order of the axes
// is lost (a TOML table is a map, written sorted).
func sweepTable(sw *Sweep) map[string]any {
	if sw == nil {
		return nil
	}
	t := make(map[string]any, len(sw.Axes))
	for _, a := range sw.Axes {
		t[a.Name] = a.Values
	}
	return t
}
