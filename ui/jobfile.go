package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/gridtui/gridtui/jobs"
)

// jobFile mirrors the job-file format that jobs.ParseSpec reads (wall time
// as text), for saving what the composer built.
type jobFile struct {
	Name     string             `toml:"name"`
	App      string             `toml:"app"`
	Scheme   string             `toml:"scheme"`
	Detector string             `toml:"detector,omitempty"`
	Cores    int                `toml:"cores"`
	MaxIter  int                `toml:"max_iterations"`
	WallTime string             `toml:"wall_time"`
	Obstacle jobs.ObstacleSpec  `toml:"obstacle"`
	Nodes    jobs.NodeSelection `toml:"nodes"`
	Groups   []jobs.Group       `toml:"group,omitempty"`
	Output   jobs.Output        `toml:"output"`
}

// encodeJobFile renders a spec as a job file.
func encodeJobFile(s jobs.Spec) ([]byte, error) {
	f := jobFile{
		Name: s.Name, App: s.App, Scheme: string(s.Scheme), Detector: string(s.Detector),
		Cores: s.Cores, MaxIter: s.MaxIter, WallTime: s.WallTime.String(),
		Obstacle: s.Obstacle, Nodes: s.Nodes, Groups: s.Groups, Output: s.Output,
	}
	var b bytes.Buffer
	b.WriteString("# gridtui job file, written by the console's Compose view\n")
	enc := toml.NewEncoder(&b)
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("ui: encode job %s: %w", s.Name, err)
	}
	return b.Bytes(), nil
}

// saveJobFile writes a spec to path atomically (temporary file + rename).
func saveJobFile(path string, s jobs.Spec) error {
	data, err := encodeJobFile(s)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".job-*.toml")
	if err != nil {
		return fmt.Errorf("ui: save job file %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("ui: save job file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("ui: save job file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("ui: save job file %s: %w", path, err)
	}
	return nil
}
