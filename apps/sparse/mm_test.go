package sparse

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	tests := map[string]struct {
		in   string
		want string // the matrix's entries as "i,j=v" (1-based), row by row
	}{
		"real general": {"%%MatrixMarket matrix coordinate real general\n% c\n\n2 2 3\n1 1 2.5\n2 1 -1e-3\n2 2 4\n", "1,1=2.5 2,1=-0.001 2,2=4"},
		"integer":      {"%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n2 2 -7\n", "1,1=3 2,2=-7"},
		"pattern":      {"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", "1,2=1 2,1=1"},
		"symmetric":    {"%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 3 2\n3 1 5\n", "1,1=2 1,2=-1 1,3=5 2,1=-1 3,1=5 3,3=2"},
		"upper case":   {"%%MatrixMarket MATRIX Coordinate REAL General\n1 1 1\n1 1 1\n", "1,1=1"},
		"crlf":         {"%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 9\r\n", "1,1=9"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m, err := Read(strings.NewReader(tc.in), "m.mtx")
			if err != nil {
				t.Fatal(err)
			}
			if got := entries(m); got != tc.want {
				t.Fatalf("entries %s, want %s", got, tc.want)
			}
		})
	}
}

func entries(m *Matrix) string {
	var s []string
	for i := range m.N {
		cols, vals := m.Row(i)
		for k, j := range cols {
			s = append(s, fmt.Sprintf("%d,%d=%g", i+1, j+1, vals[k]))
		}
	}
	return strings.Join(s, " ")
}

// TestReadErrors: every malformed file is an error naming file:line.
func TestReadErrors(t *testing.T) {
	const hdr = "%%MatrixMarket matrix coordinate real general\n"
	tests := map[string]struct{ in, want string }{
		"empty":         {"", "m.mtx:1: empty file"},
		"no header":     {"2 2 1\n1 1 1\n", "m.mtx:1: want the header"},
		"array":         {"%%MatrixMarket matrix array real general\n", "m.mtx:1: format \"array\""},
		"complex":       {"%%MatrixMarket matrix coordinate complex general\n", "m.mtx:1: field \"complex\""},
		"hermitian":     {"%%MatrixMarket matrix coordinate real hermitian\n", "m.mtx:1: symmetry \"hermitian\""},
		"no size":       {hdr + "% only a comment\n", "m.mtx:2: file ends before the size line"},
		"bad size":      {hdr + "2 2\n", "m.mtx:2: size line"},
		"not square":    {hdr + "2 3 1\n", "m.mtx:2: matrix is 2×3"},
		"neg count":     {hdr + "2 2 -1\n", "m.mtx:2: size line: \"-1\""},
		"zero rows":     {hdr + "0 0 0\n", "m.mtx:2: 0 rows"},
		"short":         {hdr + "2 2 2\n1 1 1\n", "m.mtx:3: file ends after 1 of 2 entries"},
		"long":          {hdr + "2 2 1\n1 1 1\n2 2 1\n", "m.mtx:4: more entries than the 1 announced"},
		"index":         {hdr + "2 2 1\n3 1 1\n", "m.mtx:3: entry \"3 1 1\": index \"3\" is not in 1…2"},
		"index zero":    {hdr + "2 2 1\n0 1 1\n", "m.mtx:3: entry \"0 1 1\": index \"0\""},
		"value":         {hdr + "2 2 1\n1 1 x\n", "m.mtx:3: entry \"1 1 x\": value \"x\" is not a finite real"},
		"inf":           {hdr + "2 2 1\n1 1 Inf\n", "m.mtx:3: entry \"1 1 Inf\": value \"Inf\" is not a finite real"},
		"fields":        {hdr + "2 2 1\n1 1\n", "m.mtx:3: entry \"1 1\": want 3 fields"},
		"integer value": {"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n", "m.mtx:3: entry \"1 1 1.5\": value \"1.5\" is not an integer"},
		"duplicate":     {hdr + "2 2 3\n1 1 1\n% c\n2 2 1\n1 1 2\n", "m.mtx:6: entry (1, 1) given twice (first on line 3)"},
		"upper sym":     {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", "m.mtx:3: entry (1, 2) above the diagonal"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "m.mtx")
			if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestTestdata: the files under testdata read, and the Laplacian is
// Laplacian2D(12); a written matrix reads back.
func TestTestdata(t *testing.T) {
	lap := readFile(t, "testdata/laplace2d-12.mtx")
	if entries(lap) != entries(Laplacian2D(12)) {
		t.Fatal("testdata/laplace2d-12.mtx is not Laplacian2D(12)")
	}
	for file, want := range map[string]Dominance{
		"testdata/laplace2d-12.mtx":         WeaklyIrreducible,
		"testdata/convection-irregular.mtx": WeaklyIrreducible,
		"testdata/tridiag-nondominant.mtx":  NotDominant,
	} {
		if d, why := readFile(t, file).Dominance(); d != want {
			t.Errorf("%s: dominance %d (%s), want %d", file, d, why, want)
		}
	}
	var b strings.Builder
	if err := Write(&b, lap, "a comment\nof two lines"); err != nil {
		t.Fatal(err)
	}
	back, err := Read(strings.NewReader(b.String()), "written")
	if err != nil || entries(back) != entries(lap) {
		t.Fatalf("written matrix reads back as %v, %v", back, err)
	}
}

func readFile(t *testing.T, path string) *Matrix {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// FuzzRead: the reader never panics, and what it accepts is a consistent
// square CSR matrix that writes and reads back the same.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2.5\n2 1 -1\n2 2 4\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n",
		"%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -3\n",
		"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := Read(strings.NewReader(in), "fuzz.mtx")
		if err != nil {
			if !errors.Is(err, ErrFormat) && !strings.Contains(err.Error(), "sparse:") {
				t.Fatalf("error without the package's prefix: %v", err)
			}
			return
		}
		if m.N < 1 || len(m.RowPtr) != m.N+1 || m.RowPtr[m.N] != len(m.Col) || len(m.Val) != len(m.Col) {
			t.Fatalf("inconsistent matrix %+v", m)
		}
		for i := range m.N {
			cols, _ := m.Row(i)
			for k, j := range cols {
				if j < 0 || j >= m.N || k > 0 && cols[k-1] >= j {
					t.Fatalf("row %d: columns %v", i, cols)
				}
			}
		}
		var b strings.Builder
		if err := Write(&b, m, ""); err != nil {
			t.Fatal(err)
		}
		back, err := Read(strings.NewReader(b.String()), "back")
		if err != nil || entries(back) != entries(m) {
			t.Fatalf("does not read back: %v", err)
		}
	})
}
