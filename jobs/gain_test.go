package jobs

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/internal/columns"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// paperRecords returns GRIDHPC Table III (obstacle problem 256³) as run
// records: Graphene nodes have 4 cores, Chinqchint nodes 8.
func paperRecords() []RunRecord {
	const g, c, gc = "graphene", "chinqchint", "chinqchint+graphene"
	rows := []struct {
		cores int
		times [7]float64 // G Syn, G Asyn, C Syn, C Asyn, GC Syn, GC Asyn, GC Hybrid; 0 = "-"
	}{
		{4, [7]float64{3115}},
		{8, [7]float64{1723, 1595, 3298}},
		{16, [7]float64{1355, 971, 1785, 1576, 2321, 1369, 1461}},
		{32, [7]float64{1012, 594, 1419, 1001, 1824, 855, 1119}},
		{64, [7]float64{841, 378, 1119, 631, 1444, 536, 977}},
		{128, [7]float64{742, 272, 0, 0, 1262, 386, 854}},
	}
	cols := []struct {
		grid     string
		scheme   Scheme
		perNode  int
		clusters []string
	}{
		{g, Synchronous, 4, []string{g}}, {g, Asynchronous, 4, []string{g}},
		{c, Synchronous, 8, []string{c}}, {c, Asynchronous, 8, []string{c}},
		{gc, Synchronous, 8, []string{g, c}}, {gc, Asynchronous, 8, []string{g, c}},
		{gc, Hybrid, 8, []string{g, c}},
	}
	var recs []RunRecord
	for _, r := range rows {
		for i, t := range r.times {
			if t == 0 {
				continue
			}
			col := cols[i]
			rec := sampleRecord(col.grid, col.scheme, max(r.cores/col.perNode, 1), r.cores, t)
			rec.Job.Clusters = col.clusters
			recs = append(recs, rec)
		}
	}
	// Noise the tables must ignore: a slower repeat, a failed run, another
	// size.
	slower := sampleRecord(g, Synchronous, 2, 8, 5000)
	failed := sampleRecord(g, Asynchronous, 4, 16, 1)
	failed.Outcome = OutcomeFailed
	other := sampleRecord(g, Synchronous, 1, 4, 1)
	other.Job.N = 128
	return append(recs, slower, failed, other)
}

// TestGainTableReproducesPaper: computing Table IV from Table III's times
// gives the paper's gains (the paper truncates to two decimals, we round,
// hence the 0.011 tolerance).
func TestGainTableReproducesPaper(t *testing.T) {
	tab := BuildTable(GainTable, paperRecords(), 256, paperEps)
	want := map[int][7]float64{ // Table IV, columns as in paperRecords; NaN = "-"
		4:   {1, math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		8:   {1.80, 1.95, 1, math.NaN(), math.NaN(), math.NaN(), math.NaN()},
		16:  {2.29, 3.2, 1.84, 2.09, 1.34, 2.27, 2.13},
		32:  {3.07, 5.24, 2.32, 3.29, 1.70, 3.64, 2.78},
		64:  {3.7, 8.24, 2.94, 5.22, 2.15, 5.81, 3.18},
		128: {4.19, 11.45, math.NaN(), math.NaN(), 2.46, 8.06, 3.64},
	}
	// Our column order: single clusters by name, then the pair.
	order := []TableColumn{
		{Grid: "chinqchint", Scheme: Synchronous}, {Grid: "chinqchint", Scheme: Asynchronous},
		{Grid: "graphene", Scheme: Synchronous}, {Grid: "graphene", Scheme: Asynchronous},
		{Grid: "chinqchint+graphene", Scheme: Synchronous}, {Grid: "chinqchint+graphene", Scheme: Asynchronous},
		{Grid: "chinqchint+graphene", Scheme: Hybrid},
	}
	paperIndex := []int{2, 3, 0, 1, 4, 5, 6}
	if len(tab.Columns) != len(order) {
		t.Fatalf("columns = %v", tab.Columns)
	}
	for i, c := range order {
		if tab.Columns[i] != c {
			t.Fatalf("column %d = %v, want %v", i, tab.Columns[i], c)
		}
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(want))
	}
	for _, r := range tab.Rows {
		w := want[r.Cores]
		for i, v := range r.Cells {
			p := w[paperIndex[i]]
			if math.IsNaN(p) != math.IsNaN(v) || math.Abs(v-p) > 0.011 {
				t.Errorf("%d cores, %v: gain %.4f, paper %v", r.Cores, tab.Columns[i], v, p)
			}
		}
	}
}

func TestTableGolden(t *testing.T) {
	recs := paperRecords()
	for _, kind := range []struct {
		name string
		kind TableKind
	}{{"time", TimeTable}, {"gain", GainTable}} {
		tab := BuildTable(kind.kind, recs, 256, paperEps)
		for _, f := range []struct {
			format TableFormat
			ext    string
		}{{FormatText, "txt"}, {FormatCSV, "csv"}, {FormatMarkdown, "md"}} {
			name := kind.name + "." + f.ext
			t.Run(name, func(t *testing.T) {
				var buf bytes.Buffer
				if err := tab.Write(&buf, f.format); err != nil {
					t.Fatal(err)
				}
				checkGolden(t, filepath.Join("testdata", "TestTableGolden", name+".golden"), buf.Bytes())
			})
		}
	}
}

func TestTableEmptyAndFormats(t *testing.T) {
	tab := BuildTable(TimeTable, nil, 64, 1e-8)
	if len(tab.Rows) != 0 || len(tab.Columns) != 0 || !strings.Contains(tab.Text(), "n = 64") {
		t.Fatalf("empty table = %+v\n%s", tab, tab.Text())
	}
	for in, want := range map[string]TableFormat{"": FormatText, "CSV": FormatCSV, "md": FormatMarkdown, "markdown": FormatMarkdown} {
		if got, err := ParseTableFormat(in); err != nil || got != want {
			t.Errorf("ParseTableFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseTableFormat("html"); err == nil {
		t.Error("ParseTableFormat accepted html")
	}
	if err := tab.Write(&bytes.Buffer{}, "html"); err == nil {
		t.Error("Write accepted html")
	}
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestTableTextNonASCIIGrid(t *testing.T) {
	recs := []RunRecord{sampleRecord("grünwald", Synchronous, 1, 4, 100), sampleRecord("a|b", Asynchronous, 2, 8, 40)}
	tab := BuildTable(GainTable, recs, 256, paperEps)
	lines := strings.Split(strings.TrimRight(tab.Text(), "\n"), "\n")
	// Header lines and rows align: the scheme line and every row have the
	// same width in runes.
	w := textWidth(lines[2])
	for _, l := range lines[3:] {
		if textWidth(l) != w {
			t.Fatalf("misaligned table:\n%s", tab.Text())
		}
	}
	if !strings.Contains(tab.Markdown(), `a\|b Asyn`) {
		t.Fatalf("| in a grid name not escaped:\n%s", tab.Markdown())
	}
	// a|b has no single-node run: its gain uses the fastest single node overall.
	if got := tab.Rows[1].Cells[0]; got != 2.5 {
		t.Fatalf("gain of a|b at 8 cores = %v, want 100/40 = 2.5", got)
	}
}

// TestTableKeepsInventoriesApart: the same cluster on two inventories is two
// columns, named by inventory, each with the gain against its own t1.
func TestTableKeepsInventoriesApart(t *testing.T) {
	var recs []RunRecord
	for _, r := range []struct {
		inv   string
		nodes int
		wall  float64
	}{{"embedded", 1, 10}, {"embedded", 4, 5}, {"/grid/sites.toml", 1, 40}, {"/grid/sites.toml", 4, 10}} {
		rec := sampleRecord("alpha", Asynchronous, r.nodes, r.nodes, r.wall)
		rec.Job.Inventory = r.inv
		recs = append(recs, rec)
	}
	tab := BuildTable(GainTable, recs, 256, paperEps)
	if len(tab.Columns) != 2 || len(tab.Rows) != 2 {
		t.Fatalf("columns %v, rows %d: want one column per inventory", tab.Columns, len(tab.Rows))
	}
	want := map[string][2]float64{"/grid/sites.toml": {1, 4}, "embedded": {1, 2}}
	for i, c := range tab.Columns {
		w := want[c.Inventory]
		if got := [2]float64{tab.Rows[0].Cells[i], tab.Rows[1].Cells[i]}; got != w {
			t.Errorf("%s gains %v, want %v", c.GridName(), got, w)
		}
		if !strings.Contains(c.GridName(), InventoryName(c.Inventory)) {
			t.Errorf("column %q does not name its inventory", c.GridName())
		}
	}
	one := BuildTable(TimeTable, recs[:2], 256, paperEps)
	if !strings.HasSuffix(one.Title(), "(embedded local grid)") || one.Columns[0].GridName() != "alpha" {
		t.Errorf("one inventory: title %q, column %q", one.Title(), one.Columns[0].GridName())
	}
}

// paperEps is the threshold of GRIDHPC's runs (ε = 1e-11).
const paperEps = 1e-11

// TestTableTextCJKGrid: a grid named in Chinese or Korean (two terminal
// columns a character) keeps the table aligned on a terminal: every line
// from the scheme line on is as wide, in terminal columns, as the others.
func TestTableTextCJKGrid(t *testing.T) {
	recs := []RunRecord{sampleRecord("東京", Synchronous, 1, 4, 100), sampleRecord("서울클러스터", Asynchronous, 2, 8, 40),
		sampleRecord("lyon", Synchronous, 2, 8, 50)}
	tab := BuildTable(GainTable, recs, 256, paperEps)
	text := tab.Text()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	w := columns.Width(lines[2])
	for _, l := range lines[1:] {
		if columns.Width(l) != w && strings.TrimSpace(l) != "" {
			t.Fatalf("misaligned table (line widths differ from %d):\n%s", w, text)
		}
	}
	if !strings.Contains(text, "東京") || !strings.Contains(text, "서울클러스터") {
		t.Fatalf("names missing:\n%s", text)
	}
}
