package jobs

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/internal/columns"
)

// TableKind says what a gain table's cells hold.
type TableKind int

// Table kinds, after GRIDHPC Tables III and IV.
const (
	TimeTable TableKind = iota // computing time in seconds (Table III)
	GainTable                  // computing gain C_g = t1/ts (Table IV)
)

// TableColumn is one column of a gain table: a grid configuration of an
// inventory, and a scheme.
type TableColumn struct {
	Grid   string
	Scheme Scheme
	// Inventory is the RunConfig.Inventory of the column's runs: the same
	// cluster names in two inventories are two grid configurations.
	Inventory string
	// Label names the grid configuration for a reader: Grid, followed by
	// its inventory when the table holds more than one ("alpha+beta @
	// embedded local grid"). BuildTable sets it; empty means Grid.
	Label string
}

// GridName returns the column's grid configuration as a reader sees it:
// Label, or Grid.
func (c TableColumn) GridName() string {
	if c.Label != "" {
		return c.Label
	}
	return c.Grid
}

// TableRow is one row of a gain table: a total number of cores and one cell
// per column; NaN marks a configuration never run ("-").
type TableRow struct {
	Cores int
	Cells []float64
}

// Table is a table of the shape of GRIDHPC Tables III and IV: rows by number
// of cores, columns by grid configuration × scheme.
type Table struct {
	Kind TableKind
	// Instance is the problem of the table's runs; N and Eps are its.
	Instance Instance
	N        int
	Eps      float64
	// Inventories are the inventories of the table's runs, in column order
	// (RunConfig.Inventory; "" for records older than it).
	Inventories []string
	Columns     []TableColumn
	Rows        []TableRow
}

// schemeOrder and schemeLabel give the paper's column order and names.
var (
	schemeOrder = map[Scheme]int{Synchronous: 0, Asynchronous: 1, Hybrid: 2}
	schemeLabel = map[Scheme]string{Synchronous: "Syn", Asynchronous: "Asyn", Hybrid: "Hybrid"}
)

// label returns the paper's name of a scheme, or the scheme itself.
func (c TableColumn) label() string {
	if l, ok := schemeLabel[c.Scheme]; ok {
		return l
	}
	return string(c.Scheme)
}

// BuildTable builds the table of kind from the successful obstacle runs of
// (n, eps) in recs: BuildTableOf the obstacle instance.
func BuildTable(kind TableKind, recs []RunRecord, n int, eps float64) Table {
	return BuildTableOf(kind, recs, ObstacleInstance(n, eps))
}

// BuildTableOf builds the table of kind from the successful runs of the
// instance in recs (one application with the same parameters). A cell is the fastest run of its cores × grid × scheme
// (the paper reports one time per configuration; the minimum is the least
// disturbed one on a shared machine). Runs of different inventories are
// different columns, never one cell. Gains use t1 of SingleNodeReference:
// per grid configuration, the fastest single-node run of that
// configuration, or the fastest single-node run of its inventory when the
// configuration has none (as GRIDHPC does for its two-cluster columns,
// measured against one Graphene node).
func BuildTableOf(kind TableKind, recs []RunRecord, in Instance) Table {
	t := Table{Kind: kind, Instance: in, N: in.N, Eps: in.Eps}
	type key struct {
		cores int
		col   TableColumn
	}
	best := map[key]float64{}
	cols := map[TableColumn]bool{}
	cores := map[int]bool{}
	for _, r := range recs {
		if !matches(r, in) {
			continue
		}
		k := key{r.Job.Cores, TableColumn{Grid: r.Job.Grid, Scheme: r.Job.Scheme, Inventory: r.Job.Inventory}}
		if v, ok := best[k]; !ok || r.WallSeconds < v {
			best[k] = r.WallSeconds
		}
		cols[k.col], cores[k.cores] = true, true
	}
	for c := range cols {
		t.Columns = append(t.Columns, c)
	}
	slices.SortFunc(t.Columns, compareColumns)
	for _, c := range t.Columns {
		if !slices.Contains(t.Inventories, c.Inventory) {
			t.Inventories = append(t.Inventories, c.Inventory)
		}
	}
	if len(t.Inventories) > 1 {
		for i := range t.Columns {
			t.Columns[i].Label = t.Columns[i].Grid + " @ " + InventoryName(t.Columns[i].Inventory)
		}
	}
	coreList := make([]int, 0, len(cores))
	for c := range cores {
		coreList = append(coreList, c)
	}
	slices.Sort(coreList)
	for _, nc := range coreList {
		row := TableRow{Cores: nc, Cells: make([]float64, len(t.Columns))}
		for i, c := range t.Columns {
			c.Label = "" // the key is the run's configuration alone
			v, ok := best[key{nc, c}]
			switch {
			case !ok:
				v = math.NaN()
			case kind == GainTable:
				t1 := math.NaN()
				if ref, ok := reference(recs, in, c.Inventory, c.Grid); ok {
					t1 = ref.WallSeconds
				}
				v = t1 / v
			}
			row.Cells[i] = v
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// compareColumns orders columns by grid (single clusters first, then by
// name), by inventory and by the paper's scheme order.
func compareColumns(a, b TableColumn) int {
	if c := cmp.Compare(strings.Count(a.Grid, "+"), strings.Count(b.Grid, "+")); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Grid, b.Grid); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Inventory, b.Inventory); c != 0 {
		return c
	}
	oa, okA := schemeOrder[a.Scheme]
	ob, okB := schemeOrder[b.Scheme]
	if okA != okB {
		if okA {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(oa, ob); c != 0 {
		return c
	}
	return cmp.Compare(a.Scheme, b.Scheme)
}

// Title returns the table's caption.
func (t Table) Title() string {
	what := "Computing time (s)"
	if t.Kind == GainTable {
		what = "Computing gain C_g = t1/ts"
	}
	in := t.Instance
	if in.App == "" {
		in = ObstacleInstance(t.N, t.Eps)
	}
	title := fmt.Sprintf("%s of parallel iterative methods, %s", what, in)
	if len(t.Inventories) == 1 && t.Inventories[0] != "" {
		title += " (" + InventoryName(t.Inventories[0]) + ")"
	}
	return title
}

// cell formats a cell for reading: "-" when never run, times with three or
// four significant digits, gains with two decimals.
func (t Table) cell(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case t.Kind == GainTable:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// TableFormat is an output format of WriteTable.
type TableFormat string

// Table formats.
const (
	FormatText     TableFormat = "text"
	FormatCSV      TableFormat = "csv"
	FormatMarkdown TableFormat = "markdown"
)

// ParseTableFormat accepts "text", "csv", "markdown" or "md".
func ParseTableFormat(s string) (TableFormat, error) {
	switch strings.ToLower(s) {
	case "text", "":
		return FormatText, nil
	case "csv":
		return FormatCSV, nil
	case "markdown", "md":
		return FormatMarkdown, nil
	}
	return "", fmt.Errorf("jobs: unknown table format %q, want text, csv or markdown", s)
}

// Write renders t to w in format f.
func (t Table) Write(w io.Writer, f TableFormat) error {
	var err error
	switch f {
	case FormatText:
		_, err = io.WriteString(w, t.Text())
	case FormatMarkdown:
		_, err = io.WriteString(w, t.Markdown())
	case FormatCSV:
		err = t.writeCSV(w)
	default:
		err = fmt.Errorf("jobs: unknown table format %q", f)
	}
	if err != nil {
		return fmt.Errorf("jobs: write table: %w", err)
	}
	return nil
}

// Text renders t as aligned plain text with the paper's two header lines:
// grid configurations over their scheme columns.
func (t Table) Text() string {
	const first = "cores"
	w0 := len(first)
	for _, r := range t.Rows {
		w0 = max(w0, len(strconv.Itoa(r.Cores)))
	}
	widths := make([]int, len(t.Columns))
	for i, c := range t.Columns {
		widths[i] = max(textWidth(c.label()), 4)
		for _, r := range t.Rows {
			widths[i] = max(widths[i], textWidth(t.cell(r.Cells[i])))
		}
	}
	// Widen the last column of a grid group if the grid name is longer
	// than its columns together.
	for _, g := range t.groups() {
		span := -2
		for i := g.from; i < g.to; i++ {
			span += widths[i] + 2
		}
		if extra := textWidth(g.grid) - span; extra > 0 {
			widths[g.to-1] += extra
		}
	}
	var b strings.Builder
	b.WriteString(t.Title() + "\n")
	b.WriteString(strings.Repeat(" ", w0))
	for _, g := range t.groups() {
		span := -2
		for i := g.from; i < g.to; i++ {
			span += widths[i] + 2
		}
		b.WriteString("  " + g.grid + strings.Repeat(" ", max(span-textWidth(g.grid), 0)))
	}
	b.WriteString("\n" + padLeft(first, w0))
	for i, c := range t.Columns {
		b.WriteString("  " + padLeft(c.label(), widths[i]))
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString(padLeft(strconv.Itoa(r.Cores), w0))
		for i, v := range r.Cells {
			b.WriteString("  " + padLeft(t.cell(v), widths[i]))
		}
		b.WriteString("\n")
	}
	return trimLineEnds(b.String())
}

// Markdown renders t as a GitHub-flavoured Markdown table with its caption.
func (t Table) Markdown() string {
	var b strings.Builder
	b.WriteString("**" + t.Title() + "**\n\n| Number of cores |")
	for _, c := range t.Columns {
		fmt.Fprintf(&b, " %s %s |", strings.ReplaceAll(c.GridName(), "|", `\|`), c.label())
	}
	b.WriteString("\n|---:|" + strings.Repeat("---:|", len(t.Columns)) + "\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "| %d |", r.Cores)
		for _, v := range r.Cells {
			fmt.Fprintf(&b, " %s |", t.cell(v))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// writeCSV writes one header line (cores, then grid/scheme per column) and
// full-precision values, empty when never run.
func (t Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"cores"}
	for _, c := range t.Columns {
		head = append(head, c.GridName()+"/"+string(c.Scheme))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, r := range t.Rows {
		rec := []string{strconv.Itoa(r.Cores)}
		for _, v := range r.Cells {
			s := ""
			if !math.IsNaN(v) {
				s = strconv.FormatFloat(v, 'g', -1, 64)
			}
			rec = append(rec, s)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// gridGroup is a run of adjacent columns of one grid configuration.
type gridGroup struct {
	grid     string
	from, to int
}

func (t Table) groups() []gridGroup {
	var gs []gridGroup
	for i, c := range t.Columns {
		if len(gs) > 0 && gs[len(gs)-1].grid == c.GridName() {
			gs[len(gs)-1].to = i + 1
			continue
		}
		gs = append(gs, gridGroup{c.GridName(), i, i + 1})
	}
	return gs
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(w-textWidth(s), 0)) + s
}

// textWidth is s's width on a terminal: cluster names may be non-ASCII,
// two columns a character in Chinese, Japanese or Korean.
func textWidth(s string) int { return columns.Width(s) }

func trimLineEnds(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
