package heat

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

type pvdFile struct {
	XMLName    xml.Name `xml:"VTKFile"`
	Type       string   `xml:"type,attr"`
	Collection struct {
		DataSets []struct {
			Timestep string `xml:"timestep,attr"`
			File     string `xml:"file,attr"`
		} `xml:"DataSet"`
	}
}

type vtiFile struct {
	XMLName   xml.Name `xml:"VTKFile"`
	Type      string   `xml:"type,attr"`
	ImageData struct {
		WholeExtent string `xml:"WholeExtent,attr"`
		Spacing     string `xml:"Spacing,attr"`
		Piece       struct {
			Extent string `xml:"Extent,attr"`
			Arrays []struct {
				Name   string `xml:"Name,attr"`
				Format string `xml:"format,attr"`
				Text   string `xml:",chardata"`
			} `xml:"PointData>DataArray"`
		}
	}
}

func parseXML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestWriteSeries: a run's output is a .pvd naming one .vti per level (u(0)
// and every step) with its time; each .vti is well-formed ImageData over the
// (n+2)² points whose values are the series' bits.
func TestWriteSeries(t *testing.T) {
	app := App{}
	v, err := gridapp.Parse(app.Params(), map[string]string{"n": "6", "steps": "3", "dt": "0.01", "eps": "1e-10"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := gridapp.RunLocal(app, v, nodes(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "run-20261124T000000")
	paths, err := app.WriteOutput(v, gridapp.Task{}, run.Result, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 5 || paths[0] != base+".pvd" {
		t.Fatalf("wrote %v", paths)
	}
	var pvd pvdFile
	parseXML(t, paths[0], &pvd)
	if pvd.Type != "Collection" || len(pvd.Collection.DataSets) != 4 {
		t.Fatalf("pvd: type %q, %d data sets", pvd.Type, len(pvd.Collection.DataSets))
	}
	p := ProblemOf(v)
	for s, ds := range pvd.Collection.DataSets {
		if ts, _ := strconv.ParseFloat(ds.Timestep, 64); ts != float64(s)*0.01 {
			t.Errorf("data set %d: time %s", s, ds.Timestep)
		}
		var vti vtiFile
		parseXML(t, filepath.Join(filepath.Dir(base), ds.File), &vti)
		img := vti.ImageData
		if vti.Type != "ImageData" || img.WholeExtent != "0 7 0 7 0 0" || img.Piece.Extent != img.WholeExtent || len(img.Piece.Arrays) != 1 {
			t.Fatalf("%s: type %q, extent %q/%q, %d arrays", ds.File, vti.Type, img.WholeExtent, img.Piece.Extent, len(img.Piece.Arrays))
		}
		f := strings.Fields(img.Piece.Arrays[0].Text)
		if len(f) != 8*8 {
			t.Fatalf("%s: %d values, want 64", ds.File, len(f))
		}
		want := InitialGrid(p)
		if s > 0 {
			want = run.Result.Solution[(s-1)*36 : s*36]
		}
		for k, x := range f {
			i, j := k%8, k/8 // x fastest
			got, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatal(err)
			}
			w := 0.0
			if i >= 1 && i <= 6 && j >= 1 && j <= 6 {
				w = want[(i-1)*6+j-1]
			}
			if got != w {
				t.Fatalf("%s: point (%d,%d) = %v, want %v", ds.File, i, j, got, w)
			}
		}
	}
	if _, err := app.WriteOutput(v, gridapp.Task{}, gridapp.Result{Solution: []float64{1}}, base); err == nil {
		t.Error("a solution of the wrong size written")
	}
	if _, err := WriteSeries(filepath.Join(t.TempDir(), "no", "such", "dir", "x"), p, [][]float64{InitialGrid(p)}); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}
