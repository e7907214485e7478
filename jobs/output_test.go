package jobs

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// vtiFile mirrors the parts of the VTK ImageData schema the test checks.
type vtiFile struct {
	XMLName    xml.Name `xml:"VTKFile"`
	Type       string   `xml:"type,attr"`
	ByteOrder  string   `xml:"byte_order,attr"`
	HeaderType string   `xml:"header_type,attr"`
	Image      struct {
		WholeExtent string `xml:"WholeExtent,attr"`
		Origin      string `xml:"Origin,attr"`
		Spacing     string `xml:"Spacing,attr"`
		Piece       struct {
			Extent    string `xml:"Extent,attr"`
			PointData struct {
				Scalars string `xml:"Scalars,attr"`
				Arrays  []struct {
					Type   string `xml:"type,attr"`
					Name   string `xml:"Name,attr"`
					Format string `xml:"format,attr"`
					Text   string `xml:",chardata"`
				} `xml:"DataArray"`
			} `xml:"PointData"`
		} `xml:"Piece"`
	} `xml:"ImageData"`
}

// TestWriteVTIStructureAndValues parses a written VTI as ParaView's reader
// would: a grid that is not a cube (2×3×4 points, so that a transposed axis
// shows), its WholeExtent, origin and spacing, the one Float64 array's size
// and values at known points in VTK's x-fastest order.
func TestWriteVTIStructureAndValues(t *testing.T) {
	g := gridapp.Grid{Shape: [3]int{2, 3, 4}, Origin: [3]float64{0.25, 0.5, 0}, Spacing: [3]float64{0.25, 0.125}}
	u := make([]float64, 24)
	for i := range u {
		u[i] = float64(i) / 100 // index (i*3+j)*4+k, distinct values
	}
	var buf bytes.Buffer
	if err := WriteVTI(&buf, g, u); err != nil {
		t.Fatal(err)
	}
	var f vtiFile
	if err := xml.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	im := f.Image
	if f.Type != "ImageData" || f.ByteOrder != "LittleEndian" || f.HeaderType != "UInt64" ||
		im.WholeExtent != "0 1 0 2 0 3" || im.Piece.Extent != im.WholeExtent ||
		im.Origin != "0.25 0.5 0" || im.Spacing != "0.25 0.125 1" || im.Piece.PointData.Scalars != "u" {
		t.Fatalf("bad header: %+v", f)
	}
	arrays := im.Piece.PointData.Arrays
	if len(arrays) != 1 || arrays[0].Name != "u" || arrays[0].Type != "Float64" || arrays[0].Format != "binary" {
		t.Fatalf("arrays = %+v", arrays)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(arrays[0].Text))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 8+24*8 || binary.LittleEndian.Uint64(raw) != 24*8 {
		t.Fatalf("%d bytes, header %d", len(raw), binary.LittleEndian.Uint64(raw))
	}
	for _, p := range [][3]int{{0, 0, 0}, {1, 0, 0}, {1, 2, 0}, {0, 1, 3}, {1, 2, 3}} {
		vtkIndex := p[0] + 2*(p[1]+3*p[2]) // x fastest
		got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8+8*vtkIndex:]))
		if want := u[(p[0]*3+p[1])*4+p[2]]; got != want {
			t.Errorf("point %v = %v, want %v", p, got, want)
		}
	}
}

func TestWriteRawRoundTrip(t *testing.T) {
	g := gridapp.Grid{Shape: [3]int{4, 4, 4}, Origin: [3]float64{0.2, 0.2, 0.2}, Spacing: [3]float64{0.2, 0.2, 0.2}}
	u := make([]float64, 64)
	for i := range u {
		u[i] = float64(i) * 0.5
	}
	u[5] = -0.125
	path := filepath.Join(t.TempDir(), "sol.raw")
	if err := WriteRaw(path, g, u, "test n=4"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 8*64 {
		t.Fatalf("raw file has %d bytes, want %d", len(raw), 8*64)
	}
	for i := range u {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])); got != u[i] {
			t.Fatalf("value %d = %v, want %v", i, got, u[i])
		}
	}
	js, err := os.ReadFile(path + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var meta RawSidecar
	if err := json.Unmarshal(js, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Dtype != "float64" || meta.Endian != "little" || meta.Problem != "test n=4" ||
		meta.Shape != [3]int{4, 4, 4} || meta.Origin != [3]float64{0.2, 0.2, 0.2} || meta.Bytes != 512 {
		t.Fatalf("sidecar = %+v", meta)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestWriteOutputErrors(t *testing.T) {
	g := gridapp.Grid{Shape: [3]int{2, 2, 2}}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		fn   func() error
		want string
	}{
		{"vti short", func() error { return WriteVTI(&bytes.Buffer{}, g, make([]float64, 7)) }, "7 values"},
		{"vti empty axis", func() error { return WriteVTI(&bytes.Buffer{}, gridapp.Grid{}, nil) }, "axis 0 has 0 points"},
		{"raw short", func() error { return WriteRaw(filepath.Join(dir, "a.raw"), g, nil, "") }, "a.raw"},
		{"raw no dir", func() error {
			return WriteRaw(filepath.Join(dir, "missing", "b.raw"), g, make([]float64, 8), "")
		}, "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fn()
			if !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want ErrOutput mentioning %q", err, tc.want)
			}
		})
	}
}
