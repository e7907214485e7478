package sweep

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gridtui/gridtui/internal/columns"
	"github.com/gridtui/gridtui/internal/jsonout"
	"github.com/gridtui/gridtui/jobs"
)

// Row is one instance of a sweep in its results table: its parameters and
// its last attempt (nil figures: unknown, null in JSON).
type Row struct {
	Instance    int               `json:"instance"`
	Params      map[string]string `json:"params"`
	Outcome     string            `json:"outcome"`
	Attempts    int               `json:"attempts"`
	Iterations  *int              `json:"iterations"`
	Residual    *float64          `json:"residual"`
	WallSeconds *float64          `json:"wall_seconds"` // the last attempt's, starting included
	RunSeconds  *float64          `json:"run_seconds"`  // the run's own wall time
	Hosts       []string          `json:"hosts"`
	RecordID    *string           `json:"record_id"`
	Error       *string           `json:"error"`
}

// Rows is the results table of a sweep: one row per point, from its last
// attempt in the job log; a point with none is "not run".
func Rows(h Header, points []jobs.Point, attempts []Attempt) []Row {
	last := lastAttempts(attempts)
	rows := make([]Row, len(points))
	for i, p := range points {
		r := Row{Instance: p.Index, Params: p.Map(), Outcome: OutcomeNotRun, Hosts: []string{}}
		if a, ok := last[p.Index]; ok {
			r.Outcome, r.Attempts, r.Iterations, r.Residual = a.Outcome, attemptsOf(attempts, p.Index), a.Iterations, a.Residual
			wall := a.WallSeconds
			r.WallSeconds, r.RunSeconds, r.Hosts, r.RecordID, r.Error = &wall, a.RunSeconds, a.Hosts, a.RecordID, a.Error
		}
		rows[i] = r
	}
	return rows
}

// Table is a sweep's results: its axes' names and its rows.
type Table struct {
	Sweep string   `json:"sweep"`
	Names []string `json:"parameters"`
	Rows  []Row    `json:"instances"`
}

// TableOf reads the results table of a sweep from its job log.
func TableOf(l *Log) (Table, error) {
	spec, err := l.Spec()
	if err != nil {
		return Table{}, err
	}
	points, err := spec.Sweep.Points(max(l.Header.Instances, 1))
	if err != nil {
		return Table{}, fmt.Errorf("sweep: job log %s: %w", l.Path, err)
	}
	return NewTable(l.Header, points, l.Attempts), nil
}

// NewTable is the table of points after the attempts.
func NewTable(h Header, points []jobs.Point, attempts []Attempt) Table {
	t := Table{Sweep: h.Sweep, Rows: Rows(h, points, attempts)}
	for _, a := range h.Axes {
		t.Names = append(t.Names, a.Name)
	}
	return t
}

// Formats of a results table.
const (
	FormatTable = "table"
	FormatCSV   = "csv"
	FormatJSON  = "json"
)

// Write writes the table as text columns, CSV (a header line, empty cells
// for unknown figures) or JSON (snake_case keys, null for unknown).
func (t Table) Write(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		return jsonout.Write(w, t)
	case FormatCSV:
		return t.writeCSV(w)
	case FormatTable, "", "text":
		return t.writeText(w)
	}
	return fmt.Errorf("sweep: format %q: want table, csv or json", format)
}

func (t Table) header() []string {
	h := append([]string{"instance"}, t.Names...)
	return append(h, "outcome", "attempts", "iterations", "residual", "wall_seconds", "run_seconds", "hosts", "record_id", "error")
}

func (t Table) cells(r Row) []string {
	c := []string{strconv.Itoa(r.Instance)}
	for _, n := range t.Names {
		c = append(c, r.Params[n])
	}
	return append(c, r.Outcome, strconv.Itoa(r.Attempts), intCell(r.Iterations), floatCell(r.Residual, 'e', 3),
		floatCell(r.WallSeconds, 'f', 3), floatCell(r.RunSeconds, 'f', 3), strings.Join(r.Hosts, " "), strCell(r.RecordID), strCell(r.Error))
}

func (t Table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(t.header())
	for _, r := range t.Rows {
		_ = cw.Write(t.cells(r))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("sweep: write csv: %w", err)
	}
	return nil
}

// writeText is the table for a terminal: the run's id and error left out,
// figures rounded, unknown ones as "–".
func (t Table) writeText(w io.Writer) error {
	tw := columns.NewWriter(w, 2)
	h := t.header()
	fmt.Fprintln(tw, strings.Join(append(h[:len(h)-2:len(h)-2], "record"), "\t"))
	for _, r := range t.Rows {
		c := t.cells(r)
		c = c[:len(c)-1]
		for i, v := range c {
			if v == "" {
				c[i] = "–"
			}
		}
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("sweep: write table: %w", err)
	}
	return nil
}

func intCell(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func floatCell(p *float64, f byte, prec int) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, f, prec, 64)
}

func strCell(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
