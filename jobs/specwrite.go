package jobs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// FormatSpec renders s as a job file in the schema ParseSpec reads, so that
// ParseSpec(FormatSpec(s)) gives s back for every valid spec with its
// defaults filled (WithDefaults). Every application's parameters are
// written in [params].
func FormatSpec(s Spec) ([]byte, error) {
	f := specFile{
		Name: s.Name, App: s.App, Scheme: s.Scheme, Detector: s.Detector,
		Cores: s.Cores, MaxIter: s.MaxIter, Iterations: s.Iterations, WallTime: s.WallTime.String(),
		Nodes: s.Nodes, Groups: s.Groups, Output: s.Output, Sweep: sweepTable(s.Sweep),
	}
	if s.Resilience != (Resilience{}) {
		r := s.Resilience
		f.Resilience = &r
	}
	if s.Params != nil {
		f.Params = make(map[string]any, len(s.Params))
		for k, v := range s.Params {
			f.Params[k] = v // written as strings, as gridtui wrote them before
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(f); err != nil {
		return nil, fmt.Errorf("jobs: encode job %s: %w", s.Name, err)
	}
	return b.Bytes(), nil
}

// SaveSpec writes s to path as a job file (FormatSpec) under a comment
// saying what wrote it, atomically: a temporary file in the same directory,
// then a rename, so that a reader never sees half a file.
func SaveSpec(path string, s Spec, comment string) error {
	data, err := FormatSpec(s)
	if err != nil {
		return err
	}
	if comment != "" {
		data = append([]byte("# "+strings.ReplaceAll(comment, "\n", "\n# ")+"\n"), data...)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".job-*.toml")
	if err != nil {
		return fmt.Errorf("jobs: save job file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("jobs: save job file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("jobs: save job file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("jobs: save job file %s: %w", path, err)
	}
	return nil
}
