package jobs

import (
	"github.com/gridtui/gridtui/apps/obstacle"

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

func TestWriteVTIStructureAndValues(t *testing.T) {
	p := Obstacle{N: 3}
	u := make([]float64, 27)
	for i := range u {
		u[i] = float64(i) / 100 // index (i*3+j)*3+k, distinct values
	}
	var buf bytes.Buffer
	if err := WriteVTI(&buf, p, u); err != nil {
		t.Fatal(err)
	}
	var f vtiFile
	if err := xml.Unmarshal(buf.Bytes(), &f); err != nil {
		t.Fatalf("not well-formed XML: %v", err)
	}
	im := f.Image
	if f.Type != "ImageData" || f.ByteOrder != "LittleEndian" || f.HeaderType != "UInt64" ||
		im.WholeExtent != "0 2 0 2 0 2" || im.Piece.Extent != im.WholeExtent ||
		im.Origin != "0.25 0.25 0.25" || im.Spacing != "0.25 0.25 0.25" {
		t.Fatalf("bad header: %+v", f)
	}
	arrays := im.Piece.PointData.Arrays
	if len(arrays) != 2 || arrays[0].Name != "u" || arrays[1].Name != "u_minus_phi" {
		t.Fatalf("arrays = %+v", arrays)
	}
	for _, a := range arrays {
		if a.Type != "Float64" || a.Format != "binary" {
			t.Fatalf("array %s: type %s format %s", a.Name, a.Type, a.Format)
		}
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.Text))
		if err != nil {
			t.Fatalf("array %s: %v", a.Name, err)
		}
		if len(raw) != 8+27*8 || binary.LittleEndian.Uint64(raw) != 27*8 {
			t.Fatalf("array %s: %d bytes, header %d", a.Name, len(raw), binary.LittleEndian.Uint64(raw))
		}
		// VTK order is x fastest: VTK point (X=2, Y=1, Z=0) is our (i=2, j=1, k=0).
		vtkIndex := 2 + 3*(1+3*0)
		got := math.Float64frombits(binary.LittleEndian.Uint64(raw[8+8*vtkIndex:]))
		want := u[(2*3+1)*3+0]
		if a.Name == "u_minus_phi" {
			want -= obstacle.PhiAt(0.25, 2, 1, 0)
		}
		if got != want {
			t.Fatalf("array %s at (2,1,0) = %v, want %v", a.Name, got, want)
		}
	}
}

func TestWriteRawRoundTrip(t *testing.T) {
	p := Obstacle{N: 4}
	u := InitialGuess(p)
	u[5] = -0.125
	path := filepath.Join(t.TempDir(), "sol.raw")
	if err := WriteRaw(path, p, u); err != nil {
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
	if meta.N != 4 || meta.H != 0.2 || meta.Dtype != "float64" || meta.Endian != "little" ||
		meta.Shape != [3]int{4, 4, 4} || meta.Origin != [3]float64{0.2, 0.2, 0.2} || meta.Bytes != 512 {
		t.Fatalf("sidecar = %+v", meta)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

func TestWriteOutputErrors(t *testing.T) {
	p := Obstacle{N: 2}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		fn   func() error
		want string
	}{
		{"vti short", func() error { return WriteVTI(&bytes.Buffer{}, p, make([]float64, 7)) }, "7 values"},
		{"vti bad n", func() error { return WriteVTI(&bytes.Buffer{}, Obstacle{}, nil) }, "n = 0"},
		{"raw short", func() error { return WriteRaw(filepath.Join(dir, "a.raw"), p, nil) }, "a.raw"},
		{"raw no dir", func() error {
			return WriteRaw(filepath.Join(dir, "missing", "b.raw"), p, make([]float64, 8))
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
