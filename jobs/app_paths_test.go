package jobs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// pathApp has one file parameter, for TestLoadSpecFileParams.
type pathApp struct{ gridapp.Application }

func (pathApp) Params() []gridapp.Param {
	return []gridapp.Param{gridapp.FileParam("input", "a file"), gridapp.StringParam("label", "", nil, "not a file")}
}

func init() { gridapp.Register("test-path", pathApp{}) }

// TestLoadSpecFileParams: a job file's relative file parameter is relative
// to the job file, whatever the working directory.
func TestLoadSpecFileParams(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "job.toml")
	body := "app = \"test-path\"\n[params]\ninput = \"data/m.mtx\"\nlabel = \"data/x\"\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSpec(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "data", "m.mtx"); s.Params["input"] != want || s.Params["label"] != "data/x" {
		t.Fatalf("params %v, want input %s and label data/x", s.Params, want)
	}
	if s = s.AbsPaths("/elsewhere"); s.Params["input"] != filepath.Join(dir, "data", "m.mtx") {
		t.Fatalf("an absolute path moved: %v", s.Params)
	}
}
