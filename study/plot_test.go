package study

import (
	"bytes"
	"math"
	"testing"

	"github.com/gridtui/gridtui/jobs"
)

func gainTable() jobs.Table {
	nan := math.NaN()
	return jobs.Table{Kind: jobs.GainTable, N: 64, Eps: 1e-6,
		Columns: []jobs.TableColumn{{Grid: "alpha", Scheme: jobs.Synchronous}, {Grid: "alpha+beta", Scheme: jobs.Asynchronous},
			{Grid: "alpha+beta", Scheme: jobs.Hybrid}},
		Rows: []jobs.TableRow{{Cores: 1, Cells: []float64{1, nan, nan}}, {Cores: 2, Cells: []float64{1.5, 2, nan}},
			{Cores: 8, Cells: []float64{nan, 4, 3}}}}
}

func TestWriteGainPlotFormats(t *testing.T) {
	for _, f := range PlotFormats {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteGainPlot(&b, gainTable(), f); err != nil {
				t.Fatal(err)
			}
			head := map[string]string{"svg": "<?xml", "png": "\x89PNG\r\n\x1a\n"}[f]
			if !bytes.HasPrefix(b.Bytes(), []byte(head)) {
				t.Errorf("%s plot starts %.16q", f, b.Bytes())
			}
			if f == "svg" && !bytes.Contains(b.Bytes(), []byte("alpha+beta Hybrid")) {
				t.Error("SVG has no legend entry for alpha+beta Hybrid")
			}
		})
	}
}
