package engine

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"context"

	"github.com/gridtui/gridtui/jobs"
)

// vtiHeader is what TestRunOutputEveryApp reads of a VTI file, as
// ParaView's reader does: the extent and the one point array.
type vtiHeader struct {
	Image struct {
		WholeExtent string `xml:"WholeExtent,attr"`
		Piece       struct {
			Arrays []struct {
				Type   string `xml:"type,attr"`
				Name   string `xml:"Name,attr"`
				Format string `xml:"format,attr"`
				Text   string `xml:",chardata"`
			} `xml:"PointData>DataArray"`
		} `xml:"Piece"`
	} `xml:"ImageData"`
}

// TestRunOutputEveryApp: the job's output (VTI and raw with its sidecar)
// is written through the one path for every application that says its
// grid shape — poisson here, the obstacle problem alike — and a poisson
// run's report carries no complementarity: its verdict is its own.
func TestRunOutputEveryApp(t *testing.T) {
	inv := loadInventory(t, "")
	for _, app := range []string{"poisson", "obstacle"} {
		t.Run(app, func(t *testing.T) {
			dir := t.TempDir()
			spec := jobs.Spec{Name: app, App: app, Params: map[string]string{"n": "8", "eps": "1e-6"}, Scheme: jobs.Synchronous,
				Nodes: jobs.NodeSelection{Hosts: []string{"alpha-1", "alpha-2"}}, Cores: 1,
				Output: jobs.Output{Dir: dir, VTI: true, Raw: true}}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			rep, err := Run(ctx, spec, RunOptions{Inventory: inv, NoRecord: true, StoreDir: t.TempDir()})
			if err != nil || rep.Outcome != "ok" || !rep.FiguresOK {
				t.Fatalf("run: %v, outcome %s, checks ok %v", err, rep.Outcome, rep.FiguresOK)
			}
			if len(rep.Outputs) != 2 || !strings.HasSuffix(rep.Outputs[0], ".vti") || !strings.HasSuffix(rep.Outputs[1], ".raw") {
				t.Fatalf("outputs %v, want a .vti and a .raw", rep.Outputs)
			}
			data, err := os.ReadFile(rep.Outputs[0])
			if err != nil {
				t.Fatal(err)
			}
			var v vtiHeader
			if err := xml.Unmarshal(data, &v); err != nil {
				t.Fatalf("VTI is not XML: %v", err)
			}
			a := v.Image.Piece.Arrays
			if v.Image.WholeExtent != "0 7 0 7 0 7" || len(a) != 1 || a[0].Type != "Float64" || a[0].Format != "binary" {
				t.Fatalf("VTI header %+v", v)
			}
			raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a[0].Text))
			if err != nil || len(raw) != 8+8*512 {
				t.Fatalf("array: %d bytes (%v), want 8 + 8·512", len(raw), err)
			}
			// VTK point (x=3, y=2, z=1) is the solution's (3·8 + 2)·8 + 1.
			got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8+8*(3+8*(2+8*1)):]))
			if want := rep.Solution[(3*8+2)*8+1]; got != want || want == 0 {
				t.Errorf("VTI value at (3,2,1) = %v, solution %v", got, want)
			}
			if _, err := os.Stat(rep.Outputs[1] + ".json"); err != nil {
				t.Errorf("raw sidecar: %v", err)
			}
			var text bytes.Buffer
			rep.WriteText(&text)
			js, _ := json.Marshal(rep)
			hasComp := strings.Contains(text.String(), "complementarity") || strings.Contains(strings.ToLower(string(js)), "complementarity")
			if hasComp != (app == "obstacle") {
				t.Errorf("%s report mentions complementarity: %v\n%s", app, hasComp, text.String())
			}
			if !strings.Contains(text.String(), "application check: OK") {
				t.Errorf("report lacks the verdict:\n%s", text.String())
			}
		})
	}
}
