package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gridtui/gridtui/jobs"
)

// vtiFile is what checkVTI reads of a VTI file, as ParaView's XML image
// reader (vtkXMLImageDataReader) needs it: the file type, byte order and
// header type of the binary arrays, the extent, origin and spacing, and
// the point arrays.
type vtiFile struct {
	Type       string `xml:"type,attr"`
	ByteOrder  string `xml:"byte_order,attr"`
	HeaderType string `xml:"header_type,attr"`
	Image      struct {
		WholeExtent string `xml:"WholeExtent,attr"`
		Origin      string `xml:"Origin,attr"`
		Spacing     string `xml:"Spacing,attr"`
		Piece       struct {
			Extent string `xml:"Extent,attr"`
			Arrays []struct {
				Type   string `xml:"type,attr"`
				Name   string `xml:"Name,attr"`
				Format string `xml:"format,attr"`
				Text   string `xml:",chardata"`
			} `xml:"PointData>DataArray"`
		} `xml:"Piece"`
	} `xml:"ImageData"`
}

// checkVTI parses the VTI file at path as ParaView's reader would and
// checks it holds solution (C order, the last axis fastest) on a grid of
// the given shape: a well-formed ImageData file, little endian with
// UInt64 block headers, the extent of the shape, one Float64 array whose
// header counts its bytes, and every point's value where VTK (x fastest)
// looks for it.
func checkVTI(t *testing.T, path string, shape [3]int, solution []float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v vtiFile
	if err := xml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s is not XML: %v", path, err)
	}
	extent := fmt.Sprintf("0 %d 0 %d 0 %d", shape[0]-1, shape[1]-1, shape[2]-1)
	im := v.Image
	if v.Type != "ImageData" || v.ByteOrder != "LittleEndian" || v.HeaderType != "UInt64" ||
		im.WholeExtent != extent || im.Piece.Extent != extent || len(strings.Fields(im.Origin)) != 3 || len(strings.Fields(im.Spacing)) != 3 {
		t.Fatalf("%s: header %+v, want an ImageData of extent %q", path, v, extent)
	}
	a := im.Piece.Arrays
	if len(a) != 1 || a[0].Type != "Float64" || a[0].Format != "binary" || a[0].Name == "" {
		t.Fatalf("%s: arrays %+v, want one named binary Float64 array", path, a)
	}
	points := shape[0] * shape[1] * shape[2]
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a[0].Text))
	if err != nil || len(raw) != 8+8*points || binary.LittleEndian.Uint64(raw) != uint64(8*points) || len(solution) != points {
		t.Fatalf("%s: array of %d bytes (%v), want a header of %d and 8·%d bytes; solution of %d values", path, len(raw), err, 8*points, points, len(solution))
	}
	bad := 0
	for x := range shape[0] {
		for y := range shape[1] {
			for z := range shape[2] {
				vtk := x + shape[0]*(y+shape[1]*z)
				got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8+8*vtk:]))
				if want := solution[(x*shape[1]+y)*shape[2]+z]; got != want && bad < 3 {
					bad++
					t.Errorf("%s: VTK point (%d,%d,%d) = %v, solution %v", path, x, y, z, got, want)
				}
			}
		}
	}
}

// TestRunOutputEveryApp: the job's output (VTI and raw with its sidecar)
// is written through the one path for every application that says its
// grid shape — poisson here, the obstacle problem alike — and a ParaView
// reader accepts the VTI; a poisson run's report, its JSON and its record
// in the results store carry no complementarity: its verdict is its own.
func TestRunOutputEveryApp(t *testing.T) {
	inv := loadInventory(t, "")
	for _, app := range []string{"poisson", "obstacle"} {
		t.Run(app, func(t *testing.T) {
			dir, store := t.TempDir(), t.TempDir()
			spec := jobs.Spec{Name: app, App: app, Params: map[string]string{"n": "8", "eps": "1e-6"}, Scheme: jobs.Synchronous,
				Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2"}}, Cores: 1,
				Output: jobs.Output{Dir: dir, VTI: true, Raw: true}}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := Run(ctx, spec, RunOptions{Inventory: inv, StoreDir: store})
			if err != nil || rep.Outcome != "ok" || !rep.FiguresOK {
				t.Fatalf("run: %v, outcome %s, checks ok %v", err, rep.Outcome, rep.FiguresOK)
			}
			if len(rep.Outputs) != 2 || !strings.HasSuffix(rep.Outputs[0], ".vti") || !strings.HasSuffix(rep.Outputs[1], ".raw") {
				t.Fatalf("outputs %v, want a .vti and a .raw", rep.Outputs)
			}
			checkVTI(t, rep.Outputs[0], [3]int{8, 8, 8}, rep.Solution)
			if fi, err := os.Stat(rep.Outputs[1]); err != nil || fi.Size() != 8*512 {
				t.Errorf("raw file: %v, want 8·512 bytes", err)
			}
			if _, err := os.Stat(rep.Outputs[1] + ".json"); err != nil {
				t.Errorf("raw sidecar: %v", err)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			js, _ := json.Marshal(rep)
			line := recordLine(t, store, rep.RecordID)
			for what, s := range map[string]string{"report": text.String(), "JSON report": string(js), "record": line} {
				if has := strings.Contains(strings.ToLower(s), "complementarity"); has != (app == "obstacle") {
					t.Errorf("%s %s mentions complementarity: %v\n%s", app, what, has, s)
				}
			}
			if !strings.Contains(text.String(), "application check: OK") {
				t.Errorf("report lacks the verdict:\n%s", text.String())
			}
		})
	}
}

// recordLine is the results store's line of record id, as written.
func recordLine(t *testing.T, store, id string) string {
	t.Helper()
	d, err := jobs.DataDir(store)
	if err != nil {
		t.Fatal(err)
	}
	res, err := jobs.Load(d)
	if err != nil || res == nil {
		t.Fatalf("results store %s: %v", d, err)
	}
	data, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if id != "" && strings.Contains(l, `"id":"`+id+`"`) {
			return l
		}
	}
	t.Fatalf("results store %s has no record %q:\n%s", res.Path, id, data)
	return ""
}
