package heat

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// ErrOutput is wrapped by the errors of WriteSeries.
var ErrOutput = errors.New("heat: output")

// WriteSeries writes a time series ParaView opens: base-NNNN.vti for each
// level (levels[0] is u(0), level s the solution after step s, each N²
// interior values) as VTK XML ImageData over the (N+2)² points of the
// closed square, boundary zeros included, with ASCII values that read back
// to the same bits; and base.pvd, the collection naming each file (relative
// to the .pvd) with its time s·DT. It returns the paths written, the .pvd
// first.
func WriteSeries(base string, p Problem, levels [][]float64) ([]string, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	dir := filepath.Dir(base)
	paths := []string{base + ".pvd"}
	var pvd []byte
	pvd = append(pvd, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <Collection>\n"...)
	for s, u := range levels {
		if len(u) != p.N*p.N {
			return nil, fmt.Errorf("%w: level %d holds %d values, want %d", ErrOutput, s, len(u), p.N*p.N)
		}
		name := fmt.Sprintf("%s-%04d.vti", filepath.Base(base), s)
		if err := writeVTI(filepath.Join(dir, name), p, u); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Join(dir, name))
		t := strconv.FormatFloat(float64(s)*p.DT, 'g', -1, 64)
		pvd = fmt.Appendf(pvd, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"%s\"/>\n", t, name)
	}
	pvd = append(pvd, "  </Collection>\n</VTKFile>\n"...)
	if err := os.WriteFile(paths[0], pvd, 0o644); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return paths, nil
}

// writeVTI writes one level as an ImageData file.
func writeVTI(path string, p Problem, u []float64) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%w: %w", ErrOutput, cerr)
		}
	}()
	n := p.N
	h := strconv.FormatFloat(p.H(), 'g', -1, 64)
	w := bufio.NewWriterSize(f, 1<<16)
	fmt.Fprintf(w, `<?xml version="1.0"?>
<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <ImageData WholeExtent="0 %[1]d 0 %[1]d 0 0" Origin="0 0 0" Spacing="%[2]s %[2]s %[2]s">
    <Piece Extent="0 %[1]d 0 %[1]d 0 0">
      <PointData Scalars="u">
        <DataArray type="Float64" Name="u" format="ascii">
`, n+1, h)
	// VTK orders points x fastest: point (i, j) of the closed square, i
	// along x, is value (i−1)·N + (j−1) of the interior, 0 on the boundary.
	var buf []byte
	for j := 0; j <= n+1; j++ {
		buf = buf[:0]
		for i := 0; i <= n+1; i++ {
			v := 0.0
			if i >= 1 && i <= n && j >= 1 && j <= n {
				v = u[(i-1)*n+j-1]
			}
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		w.Write(buf)
	}
	w.WriteString("        </DataArray>\n      </PointData>\n      <CellData/>\n    </Piece>\n  </ImageData>\n</VTKFile>\n")
	if err := w.Flush(); err != nil {
		return fmt.Errorf("%w: %w", ErrOutput, err)
	}
	return nil
}
