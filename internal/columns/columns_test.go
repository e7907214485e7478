package columns

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// tabwriterOutput is what text/tabwriter writes for in with the settings
// Writer mirrors.
func tabwriterOutput(in string, padding int) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, padding, ' ', 0)
	fmt.Fprint(tw, in)
	tw.Flush()
	return b.String()
}

func output(t *testing.T, in string, padding int, chunk int) string {
	t.Helper()
	var b bytes.Buffer
	w := NewWriter(&b, padding)
	for len(in) > 0 {
		n := min(chunk, len(in))
		if _, err := w.Write([]byte(in[:n])); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMatchesTabwriterOnASCII: on text whose every rune is one column
// wide, Writer writes what text/tabwriter writes, whatever the blocks,
// empty cells, tab-less lines and write boundaries.
func TestMatchesTabwriterOnASCII(t *testing.T) {
	cases := []string{
		"",
		"a\tb\tc\n",
		"name\tcores\nalpha-1\t1\nbeta-22\t16\n",
		"x\ny\tz\nlonger\tcell\tthird\n\tempty first\n",
		"a\tb\nno tab here\nccc\td\n",
		"a\tb\tc\nd\te\n\nf\tg\th\ti\nunterminated\tlast",
		"trailing\t\nx\t\t\n",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var b strings.Builder
		for range r.IntN(12) {
			for range r.IntN(5) {
				b.WriteString(strings.Repeat("w", r.IntN(7)))
				b.WriteByte('\t')
			}
			b.WriteString(strings.Repeat("z", r.IntN(4)))
			b.WriteByte('\n')
		}
		cases = append(cases, b.String())
	}
	for _, in := range cases {
		for _, padding := range []int{0, 2} {
			want := tabwriterOutput(in, padding)
			for _, chunk := range []int{1, 3, 1 << 20} {
				if got := output(t, in, padding, chunk); got != want {
					t.Fatalf("input %q, padding %d, chunks of %d:\ngot  %q\nwant %q", in, padding, chunk, got, want)
				}
			}
		}
	}
}

// TestCJKAligns: cells of CJK names (two columns a character), a
// combining mark and an ANSI colour line up by display width: every row's
// second column starts at the same terminal column.
func TestCJKAligns(t *testing.T) {
	in := "SITE\tHOST\tCORES\n" +
		"東京\t計算-1\t4\n" +
		"local\talpha-1\t1\n" +
		"서울\tnoeud-é\t2\n" + // é as e + U+0301
		"\x1b[31mred\x1b[0m\tx\t1\n"
	in = strings.Replace(in, "é", "e\u0301", 1)
	out := output(t, in, 2, 1<<20)
	var starts []int
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		cells := strings.Fields(line)
		i := strings.LastIndex(line, cells[len(cells)-1])
		starts = append(starts, Width(line[:i]))
	}
	for _, s := range starts {
		if s != starts[0] {
			t.Fatalf("the last column starts at %v:\n%s", starts, out)
		}
	}
	if want := "SITE   HOST     CORES\n東京   計算-1   4\n"; !strings.HasPrefix(out, want) {
		t.Errorf("got\n%s\nwant it to begin\n%s", out, want)
	}
	// text/tabwriter, counting runes, does not align them.
	if tw := tabwriterOutput(in, 2); tw == out {
		t.Error("text/tabwriter aligns CJK too: the test shows nothing")
	}
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// TestWriteError: the underlying writer's error is returned, then kept.
func TestWriteError(t *testing.T) {
	w := NewWriter(errWriter{}, 2)
	if _, err := w.Write([]byte("a\tb\nno tab\n")); err == nil {
		t.Fatal("no error")
	}
	if err := w.Flush(); err == nil || err.Error() != "disk full" {
		t.Errorf("flush: %v", err)
	}
}
