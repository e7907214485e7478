package jobs

import (
	"bufio"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// ErrOutput is wrapped by every error of the solution writers.
var ErrOutput = errors.New("jobs: cannot write solution")

// checkGrid reports whether u holds the points of g.
func checkGrid(g gridapp.Grid, u []float64) error {
	for a, n := range g.Shape {
		if n < 1 {
			return fmt.Errorf("%w: grid shape %v: axis %d has %d points", ErrOutput, g.Shape, a, n)
		}
	}
	if len(u) != g.Points() {
		return fmt.Errorf("%w: %d values for a grid of %v points, want %d", ErrOutput, len(u), g.Shape, g.Points())
	}
	return nil
}

// spacing returns g's spacing with 0 read as 1.
func spacing(g gridapp.Grid) [3]float64 {
	s := g.Spacing
	for a := range s {
		if s[a] == 0 {
			s[a] = 1
		}
	}
	return s
}

// WriteVTI writes u, the solution on grid g in C order (the last axis
// fastest, gridapp.Gridded), as a VTK XML ImageData file (.vti) that
// ParaView and VisIt open directly: point array "u" as Float64, inline
// base64 binary with a UInt64 byte-count header (encoded together with the
// data, as VTK expects for uncompressed arrays; checked with VTK 9.1's
// vtkXMLImageDataReader: dimensions, origin, spacing, values at known
// points). VTK's first axis is the grid's first (x = Origin[0] +
// i·Spacing[0]); VTK orders points x fastest, the transpose of C order, so
// values are reordered here.
func WriteVTI(w io.Writer, g gridapp.Grid, u []float64) error {
	if err := checkGrid(g, u); err != nil {
		return err
	}
	sp := spacing(g)
	bw := bufio.NewWriterSize(w, 1<<16)
	ext := fmt.Sprintf("0 %d 0 %d 0 %d", g.Shape[0]-1, g.Shape[1]-1, g.Shape[2]-1)
	fmt.Fprintf(bw, `<?xml version="1.0"?>
<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <ImageData WholeExtent="%[1]s" Origin="%[2]s %[3]s %[4]s" Spacing="%[5]s %[6]s %[7]s">
    <Piece Extent="%[1]s">
      <PointData Scalars="u">
`, ext, fmtFloat(g.Origin[0]), fmtFloat(g.Origin[1]), fmtFloat(g.Origin[2]), fmtFloat(sp[0]), fmtFloat(sp[1]), fmtFloat(sp[2]))
	bw.WriteString("        <DataArray type=\"Float64\" Name=\"u\" format=\"binary\">\n          ")
	if err := writeBase64Array(bw, g.Shape, u); err != nil {
		return fmt.Errorf("%w: array u: %w", ErrOutput, err)
	}
	bw.WriteString("\n        </DataArray>\n")
	bw.WriteString("      </PointData>\n      <CellData/>\n    </Piece>\n  </ImageData>\n</VTKFile>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return nil
}

// fmtFloat formats v with the fewest digits that read back to the same bits.
func fmtFloat(v float64) string { return fmt.Sprintf("%v", v) }

// writeBase64Array writes the UInt64 byte count and the values of u (C
// order over shape), the first axis fastest, as one base64 stream.
func writeBase64Array(w io.Writer, shape [3]int, u []float64) error {
	enc := base64.NewEncoder(base64.StdEncoding, w)
	buf := make([]byte, 0, 8*1024)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(8*len(u)))
	for k := range shape[2] {
		for j := range shape[1] {
			for i := range shape[0] {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(u[(i*shape[1]+j)*shape[2]+k]))
				if len(buf) == cap(buf) {
					if _, err := enc.Write(buf); err != nil {
						return err
					}
					buf = buf[:0]
				}
			}
		}
	}
	if _, err := enc.Write(buf); err != nil {
		return err
	}
	return enc.Close()
}

// RawSidecar is the JSON description written next to a raw solution file,
// enough for numpy (np.fromfile(path, "<f8").reshape(shape), indexed
// [i, j, k]) or ParaView's raw reader.
type RawSidecar struct {
	Spacing [3]float64 `json:"spacing"`
	Origin  [3]float64 `json:"origin"`
	Dtype   string     `json:"dtype"` // "float64"
	Endian  string     `json:"endian"`
	Order   string     `json:"order"`
	Shape   [3]int     `json:"shape"`
	Bytes   int64      `json:"bytes"`
	// Problem names the application and its parameters.
	Problem string `json:"problem"`
}

// WriteRaw writes u, the solution on grid g in C order, to path as
// little-endian float64 values and a RawSidecar to path+".json"; problem
// names what was solved ("obstacle eps=1e-08 n=48"). Both files are
// written to a temporary name and renamed, so a crash never leaves a
// half-written solution under the final name.
func WriteRaw(path string, g gridapp.Grid, u []float64, problem string) error {
	if err := checkGrid(g, u); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	meta := RawSidecar{
		Spacing: spacing(g), Origin: g.Origin,
		Dtype: "float64", Endian: "little",
		Order:   "C order (the last axis fastest): index = (i*shape[1] + j)*shape[2] + k; axis a's coordinate = origin[a] + index*spacing[a]",
		Shape:   g.Shape,
		Bytes:   int64(8 * len(u)),
		Problem: problem,
	}
	err := writeFileAtomic(path, func(w io.Writer) error {
		buf := make([]byte, 0, 8*1024)
		for _, v := range u {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
			if len(buf) == cap(buf) {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		_, err := w.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	return writeFileAtomic(path+".json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(meta)
	})
}

// writeFileAtomic writes path through a temporary file in the same
// directory, synced and renamed into place.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	tmp := f.Name()
	_ = f.Chmod(0o644) // CreateTemp makes 0600; a solution file is not secret
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("%w: %s: %w", ErrOutput, path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := write(bw); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%w: %s: %w", ErrOutput, path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%w: %s: %w", ErrOutput, path, err)
	}
	return nil
}
