package jobs

import (
	"github.com/gridtui/gridtui/apps/obstacle"

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
)

// ErrOutput is wrapped by every error of the solution writers.
var ErrOutput = errors.New("jobs: cannot write solution")

// checkGrid reports whether u holds the N³ values of p.
func checkGrid(p Obstacle, u []float64) error {
	if err := p.WithDefaults().Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	if len(u) != p.Points() {
		return fmt.Errorf("%w: %d values for n = %d, want %d", ErrOutput, len(u), p.N, p.Points())
	}
	return nil
}

// WriteVTI writes u as a VTK XML ImageData file (.vti) that ParaView and VisIt
// open directly: the N³ interior points with origin (h, h, h) and spacing h,
// point arrays "u" and "u_minus_phi" (zero on the contact set) as Float64,
// inline base64 binary with a UInt64 byte-count header (encoded together with
// the data, as VTK expects for uncompressed arrays; checked with VTK 9.1's
// vtkXMLImageDataReader: dimensions, origin, spacing, values at known
// points). VTK orders points x fastest, the transpose of our x-major layout,
// so values are reordered here.
func WriteVTI(w io.Writer, p Obstacle, u []float64) error {
	if err := checkGrid(p, u); err != nil {
		return err
	}
	n, h := p.N, p.H()
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, `<?xml version="1.0"?>
<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <ImageData WholeExtent="0 %[1]d 0 %[1]d 0 %[1]d" Origin="%[2]s %[2]s %[2]s" Spacing="%[2]s %[2]s %[2]s">
    <Piece Extent="0 %[1]d 0 %[1]d 0 %[1]d">
      <PointData Scalars="u">
`, n-1, fmtFloat(h))
	arrays := []struct {
		name string
		at   func(i, j, k int) float64
	}{
		{"u", func(i, j, k int) float64 { return u[(i*n+j)*n+k] }},
		{"u_minus_phi", func(i, j, k int) float64 { return u[(i*n+j)*n+k] - obstacle.PhiAt(h, i, j, k) }},
	}
	for _, a := range arrays {
		fmt.Fprintf(bw, "        <DataArray type=\"Float64\" Name=%q format=\"binary\">\n          ", a.name)
		if err := writeBase64Array(bw, n, a.at); err != nil {
			return fmt.Errorf("%w: array %s: %w", ErrOutput, a.name, err)
		}
		bw.WriteString("\n        </DataArray>\n")
	}
	bw.WriteString("      </PointData>\n      <CellData/>\n    </Piece>\n  </ImageData>\n</VTKFile>\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return nil
}

// fmtFloat formats v with the fewest digits that read back to the same bits.
func fmtFloat(v float64) string { return fmt.Sprintf("%v", v) }

// writeBase64Array writes the UInt64 byte count and the N³ values of at, x
// fastest, as one base64 stream.
func writeBase64Array(w io.Writer, n int, at func(i, j, k int) float64) error {
	enc := base64.NewEncoder(base64.StdEncoding, w)
	buf := make([]byte, 0, 8*1024)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(8*n*n*n))
	for k := range n {
		for j := range n {
			for i := range n {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(at(i, j, k)))
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
// enough for numpy (np.fromfile(path, "<f8").reshape(n, n, n), indexed
// [x, y, z]) or ParaView's raw reader.
type RawSidecar struct {
	N       int        `json:"n"`
	H       float64    `json:"h"`
	Spacing [3]float64 `json:"spacing"`
	Origin  [3]float64 `json:"origin"`
	Dtype   string     `json:"dtype"` // "float64"
	Endian  string     `json:"endian"`
	Order   string     `json:"order"`
	Shape   [3]int     `json:"shape"`
	Bytes   int64      `json:"bytes"`
	Problem string     `json:"problem"`
}

// WriteRaw writes u to path as N³ little-endian float64 values in our
// x-major order (index (i·N + j)·N + k, x = (i+1)h) and a RawSidecar to
// path+".json". Both files are written to a temporary name and renamed, so a
// crash never leaves a half-written solution under the final name.
func WriteRaw(path string, p Obstacle, u []float64) error {
	if err := checkGrid(p, u); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	h := p.H()
	meta := RawSidecar{
		N: p.N, H: h,
		Spacing: [3]float64{h, h, h},
		Origin:  [3]float64{h, h, h},
		Dtype:   "float64", Endian: "little",
		Order:   "x-major (C order, shape [x][y][z]); index = (i*n + j)*n + k; x = (i+1)*h",
		Shape:   [3]int{p.N, p.N, p.N},
		Bytes:   int64(8 * len(u)),
		Problem: "obstacle: f = -10, phi = -0.2 + 0.05x + 0.03y - 0.02z, u = 0 on the boundary",
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
