package sparse

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits of the Matrix Market reader.
const (
	MaxRows    = 1 << 24
	MaxEntries = 1 << 27
)

// ErrFormat is wrapped by every error of Read about the file's contents.
var ErrFormat = errors.New("sparse: bad Matrix Market file")

// Read parses a Matrix Market file (NIST, "coordinate" format): the header
//
//	%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric
//
// comment lines starting with %, the size line "rows cols entries", then one
// line "i j [value]" per entry, 1-based. A symmetric file stores the lower
// triangle (i ≥ j) and its off-diagonal entries are mirrored; a pattern
// entry has the value 1. The matrix must be square and no entry may be given
// twice. Errors say name:line: what is wrong.
func Read(r io.Reader, name string) (*Matrix, error) {
	n, es, err := scan(r, name, func(int) bool { return true })
	if err != nil {
		return nil, err
	}
	return FromEntries(n, es)
}

// ReadRows reads rows [lo, hi) of the matrix of a Matrix Market file (as
// Read reads the whole): the file is scanned through, but only the entries
// of those rows are kept, so that a node holds its own rows and nothing
// more. A row range outside the matrix is an error.
func ReadRows(r io.Reader, name string, lo, hi int) (*Rows, error) {
	n, es, err := scan(r, name, func(i int) bool { return i >= lo && i < hi })
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi > n || lo >= hi {
		return nil, fmt.Errorf("%w: %s: rows [%d,%d) of a %d×%d matrix", ErrFormat, name, lo, hi, n, n)
	}
	return rowsOf(n, lo, hi, es)
}

// scan parses a Matrix Market file and returns its size and the entries
// (mirrored ones of a symmetric file included) whose row keep accepts.
func scan(r io.Reader, name string, keep func(i int) bool) (int, []Entry, error) {
	p := &mmParser{sc: bufio.NewScanner(r), name: name}
	p.sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	field, symmetric, err := p.header()
	if err != nil {
		return 0, nil, err
	}
	n, nnz, err := p.size()
	if err != nil {
		return 0, nil, err
	}
	capacity := nnz
	if symmetric {
		capacity *= 2
	}
	es := make([]Entry, 0, min(capacity, 1<<20))
	seen := make(map[[2]int]int, min(nnz, 1<<20))
	for k := 0; k < nnz; k++ {
		line, ok, err := p.next()
		if err != nil {
			return 0, nil, err
		}
		if !ok {
			return 0, nil, p.errf("file ends after %d of %d entries", k, nnz)
		}
		e, err := p.entry(line, n, field, symmetric)
		if err != nil {
			return 0, nil, err
		}
		mirror := symmetric && e.I != e.J
		if !keep(e.I) && !(mirror && keep(e.J)) {
			continue
		}
		key := [2]int{e.I, e.J}
		if first, dup := seen[key]; dup {
			return 0, nil, p.errf("entry (%d, %d) given twice (first on line %d)", e.I+1, e.J+1, first)
		}
		seen[key] = p.line
		if keep(e.I) {
			es = append(es, e)
		}
		if mirror && keep(e.J) {
			es = append(es, Entry{e.J, e.I, e.V})
		}
	}
	if line, ok, err := p.next(); err != nil {
		return 0, nil, err
	} else if ok {
		return 0, nil, p.errf("more entries than the %d announced: %q", nnz, clip(line))
	}
	return n, es, nil
}

type mmParser struct {
	sc   *bufio.Scanner
	name string
	line int
}

func (p *mmParser) errf(format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrFormat, p.name, p.line, fmt.Sprintf(format, args...))
}

// next returns the next line that is neither blank nor a comment.
func (p *mmParser) next() (string, bool, error) {
	for p.sc.Scan() {
		p.line++
		l := strings.TrimSpace(p.sc.Text())
		if l != "" && !strings.HasPrefix(l, "%") {
			return l, true, nil
		}
	}
	if err := p.sc.Err(); err != nil {
		p.line++
		return "", false, p.errf("%v", err)
	}
	return "", false, nil
}

// header reads the banner line.
func (p *mmParser) header() (field string, symmetric bool, err error) {
	if !p.sc.Scan() {
		p.line = 1
		if err := p.sc.Err(); err != nil {
			return "", false, p.errf("%v", err)
		}
		return "", false, p.errf("empty file, want a %%%%MatrixMarket header")
	}
	p.line = 1
	f := strings.Fields(strings.ToLower(p.sc.Text()))
	if len(f) != 5 || f[0] != "%%matrixmarket" {
		return "", false, p.errf("want the header %%%%MatrixMarket matrix coordinate <field> <symmetry>, got %q", clip(p.sc.Text()))
	}
	switch {
	case f[1] != "matrix":
		return "", false, p.errf("object %q: only matrix is supported", f[1])
	case f[2] != "coordinate":
		return "", false, p.errf("format %q: only coordinate (sparse) is supported", f[2])
	case f[3] != "real" && f[3] != "integer" && f[3] != "pattern":
		return "", false, p.errf("field %q: want real, integer or pattern", f[3])
	case f[4] != "general" && f[4] != "symmetric":
		return "", false, p.errf("symmetry %q: want general or symmetric", f[4])
	}
	return f[3], f[4] == "symmetric", nil
}

// size reads the size line.
func (p *mmParser) size() (n, nnz int, err error) {
	line, ok, err := p.next()
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, 0, p.errf("file ends before the size line (rows cols entries)")
	}
	f := strings.Fields(line)
	if len(f) != 3 {
		return 0, 0, p.errf("size line %q: want rows cols entries", clip(line))
	}
	var v [3]int
	for i, s := range f {
		if v[i], err = strconv.Atoi(s); err != nil || v[i] < 0 {
			return 0, 0, p.errf("size line: %q is not a count", clip(s))
		}
	}
	switch {
	case v[0] != v[1]:
		return 0, 0, p.errf("matrix is %d×%d: A x = b needs a square matrix", v[0], v[1])
	case v[0] < 1 || v[0] > MaxRows:
		return 0, 0, p.errf("%d rows: want 1 to %d", v[0], MaxRows)
	case v[2] > MaxEntries:
		return 0, 0, p.errf("%d entries: at most %d are read", v[2], MaxEntries)
	}
	return v[0], v[2], nil
}

// entry parses one entry line.
func (p *mmParser) entry(line string, n int, field string, symmetric bool) (Entry, error) {
	f := strings.Fields(line)
	want := 3
	if field == "pattern" {
		want = 2
	}
	if len(f) != want {
		return Entry{}, p.errf("entry %q: want %d fields (i j%s)", clip(line), want, map[bool]string{true: " value", false: ""}[want == 3])
	}
	var idx [2]int
	for k := range idx {
		v, err := strconv.Atoi(f[k])
		if err != nil || v < 1 || v > n {
			return Entry{}, p.errf("entry %q: index %q is not in 1…%d", clip(line), clip(f[k]), n)
		}
		idx[k] = v - 1
	}
	if symmetric && idx[0] < idx[1] {
		return Entry{}, p.errf("entry (%d, %d) above the diagonal in a symmetric file (the lower triangle is stored)", idx[0]+1, idx[1]+1)
	}
	e := Entry{I: idx[0], J: idx[1], V: 1}
	switch field {
	case "real":
		v, err := strconv.ParseFloat(f[2], 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return Entry{}, p.errf("entry %q: value %q is not a finite real", clip(line), clip(f[2]))
		}
		e.V = v
	case "integer":
		v, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return Entry{}, p.errf("entry %q: value %q is not an integer", clip(line), clip(f[2]))
		}
		e.V = float64(v)
	}
	return e, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// Write writes m as a general real coordinate Matrix Market file.
func Write(w io.Writer, m *Matrix, comment string) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "%%MatrixMarket matrix coordinate real general")
	for _, l := range strings.Split(comment, "\n") {
		if l != "" {
			fmt.Fprintf(bw, "%% %s\n", l)
		}
	}
	fmt.Fprintf(bw, "%d %d %d\n", m.N, m.N, len(m.Col))
	for i := range m.N {
		cols, vals := m.Row(i)
		for k, j := range cols {
			fmt.Fprintf(bw, "%d %d %s\n", i+1, j+1, strconv.FormatFloat(vals[k], 'g', -1, 64))
		}
	}
	return bw.Flush()
}
