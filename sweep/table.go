package sweep

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"sort"
	"strconv"
)

// WriteCSV writes the results table: one row per instance, its
// parameters (sorted by name) then status, attempts, iterations, residual,
// seconds, error and why it was rerun.
func WriteCSV(w io.Writer, out []Outcome) error {
	names := paramNames(out)
	cw := csv.NewWriter(w)
	head := append([]string{"index"}, names...)
	head = append(head, "status", "attempts", "iterations", "residual", "seconds", "error", "rerun")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, o := range out {
		row := []string{strconv.Itoa(o.Index)}
		for _, n := range names {
			row = append(row, o.Params[n])
		}
		row = append(row, o.Status, strconv.Itoa(o.Attempts), strconv.Itoa(o.Iterations),
			strconv.FormatFloat(o.Residual, 'g', -1, 64), strconv.FormatFloat(o.Seconds, 'f', 3, 64), o.Error, o.Rerun)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes the results table as a JSON array.
func WriteJSON(w io.Writer, out []Outcome) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func paramNames(out []Outcome) []string {
	seen := map[string]bool{}
	var names []string
	for _, o := range out {
		for k := range o.Params {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	return names
}
