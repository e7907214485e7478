package exec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"

	"github.com/gridtui/gridtui/apps/gridapp"
)

// parsePrograms reads the programs parameter: "host=path cluster=path …".
func parsePrograms(programs string) (map[string]string, error) {
	byName := map[string]string{}
	for _, f := range strings.Fields(programs) {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("exec: programs: %q is not host=path or cluster=path", f)
		}
		if _, dup := byName[name]; dup {
			return nil, fmt.Errorf("exec: programs: %s is given twice", name)
		}
		byName[name] = path
	}
	return byName, nil
}

// programPath returns the program's path on this part's host, located
// there: the host's entry in programs, else its cluster's, else program.
func programPath(program, programs string, sub gridapp.Subtask) (string, error) {
	byName, err := parsePrograms(programs)
	if err != nil {
		return "", err
	}
	n := sub.Node
	p, ok := byName[n.Name] // no name is empty: parsePrograms refuses it
	if !ok {
		p, ok = byName[n.Cluster]
	}
	if !ok {
		p = program
	}
	if p == "" {
		return "", fmt.Errorf("exec: no program for host %s (rank %d): programs names neither it nor its cluster %q, and program is empty", n.Name, sub.Rank, n.Cluster)
	}
	return locate(p, n.Name, sub.Rank)
}

// locate finds the program on this worker's host: an absolute path as it
// is, a relative one from the worker's directory, a bare name not there in PATH (python3). What is missing or cannot
// be executed is an error naming the host and the path.
func locate(path, host string, rank int) (string, error) {
	where := fmt.Sprintf("on host %s (rank %d)", host, rank)
	if host == "" {
		where = fmt.Sprintf("on rank %d", rank)
	}
	full := path
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("exec: program %s %s: the worker's directory: %w", path, where, err)
		}
		full = filepath.Join(wd, path)
		if !strings.ContainsRune(path, '/') {
			if _, err := os.Stat(full); errors.Is(err, fs.ErrNotExist) {
				found, lerr := osexec.LookPath(path)
				if lerr != nil {
					return "", fmt.Errorf("exec: program %s %s: neither in the worker's directory %s nor in PATH (give its path on that host with program or programs = \"%s=/path\", or ship it with deploy --ship)",
						path, where, wd, host)
				}
				return found, nil
			}
		}
	}
	fi, err := os.Stat(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("exec: program %s %s: no such file (give its path on that host with program or programs = \"%s=/path\", or ship it with deploy --ship)", full, where, host)
	case err != nil:
		return "", fmt.Errorf("exec: program %s %s: %w", full, where, err)
	case fi.IsDir():
		return "", fmt.Errorf("exec: program %s %s: is a directory", full, where)
	}
	if err := executable(full, fi); err != nil {
		return "", fmt.Errorf("exec: program %s %s: not executable by the worker's user (%v)", full, where, err)
	}
	return full, nil
}

// libName is the in-process library's file name (link = "inprocess").
const libName = "libgridhpc_inproc.so"

// libraryPath returns the absolute path of libgridhpc_inproc.so on this
// host: library as the job gives it (relative: to the worker's
// directory), or beside the program.
func libraryPath(library, program string) (string, error) {
	if library == "" {
		library = filepath.Join(filepath.Dir(program), libName)
	}
	abs, err := filepath.Abs(library)
	if err != nil {
		return "", fmt.Errorf("exec: library %s: %w", library, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("exec: link = \"inprocess\" needs %s on every host: %w (build it with `go build -buildmode=c-shared -o %s ./cmd/libgridhpc-inproc` in gridtui's source, and give its path in the library parameter)", libName, err, libName)
	}
	return abs, nil
}
