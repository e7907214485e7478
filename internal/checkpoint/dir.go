package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Dir keeps checkpoints on disk: under Path, one directory per run, and in
// it each rank's last Keep checkpoints named rank-R.iter-K.gtck.
type Dir struct {
	Path string
	Keep int // checkpoints kept per rank (0: 2, the last and the one before)
	// MaxPayload bounds a payload Latest reads (0: 1 GiB).
	MaxPayload int64
}

// Refusal is a checkpoint file Latest passed over, and why.
type Refusal struct {
	File string
	Err  error
}

func (d Dir) keep() int { return max(d.Keep, 2) }

func (d Dir) max() int64 {
	if d.MaxPayload > 0 {
		return d.MaxPayload
	}
	return 1 << 30
}

// runDir returns the run's directory, refusing a run id that would leave it.
func (d Dir) runDir(run string) (string, error) {
	if run == "" || strings.ContainsAny(run, `/\`) || run == "." || run == ".." {
		return "", fmt.Errorf("checkpoint: run id %q cannot name a directory", run)
	}
	return filepath.Join(d.Path, run), nil
}

// Save writes payload as rank h.Rank's checkpoint of iteration h.Iteration,
// atomically (temporary file, fsync, rename, fsync of the directory), then
// removes that rank's checkpoints older than the last Keep. It returns the
// file written.
func (d Dir) Save(h Header, payload []byte) (string, error) {
	data, err := Append(nil, h, payload)
	if err != nil {
		return "", err
	}
	return d.SaveEncoded(h, data)
}

// SaveEncoded is Save of a container already encoded under h (Append or
// Seal): the same bytes are written, without another copy of the state.
func (d Dir) SaveEncoded(h Header, data []byte) (string, error) {
	dir, err := d.runDir(h.Run)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	name := filepath.Join(dir, fmt.Sprintf("rank-%d.iter-%d.gtck", h.Rank, h.Iteration))
	if err := writeAtomic(name, data); err != nil {
		return "", err
	}
	files, _ := d.files(dir, h.Rank)
	for i := d.keep(); i < len(files); i++ {
		os.Remove(files[i].path) // best effort: an old copy left behind is harmless
	}
	return name, nil
}

// writeAtomic writes data to name through a temporary file of the same
// directory, so that name is either the old content or the new, whole.
func writeAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("checkpoint: write %s: %w", name, err)
	}
	if dir, err := os.Open(filepath.Dir(name)); err == nil {
		dir.Sync()
		dir.Close()
	}
	return nil
}

type file struct {
	path string
	iter uint64
}

// files lists rank's checkpoint files in dir, newest first.
func (d Dir) files(dir string, rank int) ([]file, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	prefix := fmt.Sprintf("rank-%d.iter-", rank)
	var out []file
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, ".gtck") {
			continue
		}
		it, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, prefix), ".gtck"), 10, 64)
		if err != nil {
			continue
		}
		out = append(out, file{filepath.Join(dir, n), it})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].iter > out[j].iter })
	return out, nil
}

// NewestHeader returns the header of rank's newest checkpoint file of run
// whose header reads (neither its payload nor its checksum is checked:
// Latest does, when the part restores): where a restore from the disk
// would start. With none, the error wraps ErrNone.
func (d Dir) NewestHeader(run string, rank int) (Header, error) {
	dir, err := d.runDir(run)
	if err != nil {
		return Header{}, err
	}
	files, err := d.files(dir, rank)
	for _, f := range files {
		h, herr := readHeader(f.path)
		if herr == nil && h.Run == run && h.Rank == rank {
			return h, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("no file of rank %d", rank)
	}
	return Header{}, fmt.Errorf("%w in %s: %w", ErrNone, dir, err)
}

// readHeader reads the header at the start of the file at path.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	b := make([]byte, fixedLen+255)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Header{}, err
	}
	return ParseHeader(b[:n])
}

// ErrNone is wrapped by Latest's error when no checkpoint can be restored.
var ErrNone = errors.New("checkpoint: no usable checkpoint")

// Latest returns the newest of want.Rank's checkpoints that is sound and
// Check(…, want) accepts, and the files it passed over with their reasons
// (the report says them). With none usable, the error wraps ErrNone.
func (d Dir) Latest(want Header) (Header, []byte, []Refusal, error) {
	dir, err := d.runDir(want.Run)
	if err != nil {
		return Header{}, nil, nil, err
	}
	files, err := d.files(dir, want.Rank)
	if err != nil {
		return Header{}, nil, nil, fmt.Errorf("%w for part %d: %w", ErrNone, want.Rank, err)
	}
	var refused []Refusal
	for _, f := range files {
		h, payload, err := d.readFile(f.path, want)
		if err == nil {
			return h, payload, refused, nil
		}
		refused = append(refused, Refusal{f.path, err})
	}
	return Header{}, nil, refused, fmt.Errorf("%w for part %d in %s (%d refused)", ErrNone, want.Rank, dir, len(refused))
}

// ReadFile reads and checks one checkpoint file; the error names the file.
func (d Dir) readFile(path string, want Header) (Header, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("checkpoint: %w", err)
	}
	r := bytes.NewReader(data)
	h, payload, err := Read(r, d.max())
	if err == nil && r.Len() != 0 {
		err = fmt.Errorf("%w: %d bytes after the checksum", ErrCorrupt, r.Len())
	}
	if err == nil {
		err = Check(h, want)
	}
	if err != nil {
		return Header{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, payload, nil
}

// Load returns want.Rank's checkpoint of iteration it, checked against want
// (a synchronous rollback needs that exact one); the error names the file.
func (d Dir) Load(want Header, it uint64) (Header, []byte, error) {
	dir, err := d.runDir(want.Run)
	if err != nil {
		return Header{}, nil, err
	}
	h, payload, err := d.readFile(filepath.Join(dir, fmt.Sprintf("rank-%d.iter-%d.gtck", want.Rank, it)), want)
	if err == nil && h.Iteration != it {
		err = fmt.Errorf("%w: rank %d: the file of iteration %d holds iteration %d", ErrCorrupt, want.Rank, it, h.Iteration)
	}
	return h, payload, err
}

// Iterations returns the iterations of rank's checkpoints of run on disk,
// newest first (unverified: Load checks each).
func (d Dir) Iterations(run string, rank int) ([]uint64, error) {
	dir, err := d.runDir(run)
	if err != nil {
		return nil, err
	}
	files, err := d.files(dir, rank)
	out := make([]uint64, len(files))
	for i, f := range files {
		out[i] = f.iter
	}
	return out, err
}

// DropAfter deletes rank's checkpoints of run past iteration it: the part
// restarted from it (a step's start, the start of the run), and those are
// of the timeline it abandoned, which a newest must never restore again.
func (d Dir) DropAfter(run string, rank int, it uint64) error {
	dir, err := d.runDir(run)
	if err != nil {
		return err
	}
	files, err := d.files(dir, rank)
	for _, f := range files {
		if f.iter > it {
			if rerr := os.Remove(f.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				err = errors.Join(err, fmt.Errorf("checkpoint: %w", rerr))
			}
		}
	}
	return err
}

// Remove deletes the run's checkpoints (once the run ended).
func (d Dir) Remove(run string) error {
	dir, err := d.runDir(run)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

// noneFile marks a run whose application takes no checkpoints.
const noneFile = "no-checkpoints"

// MarkNone records that run's parts of application app take no
// checkpoints, so that a recovery can say why it cannot be (best effort:
// the mark only improves a message).
func (d Dir) MarkNone(run, app string) {
	dir, err := d.runDir(run)
	if err != nil || os.MkdirAll(dir, 0o700) != nil {
		return
	}
	os.WriteFile(filepath.Join(dir, noneFile), []byte(app+"\n"), 0o600)
}

// MarkedNone reports whether MarkNone was called for run.
func (d Dir) MarkedNone(run string) bool {
	dir, err := d.runDir(run)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, noneFile))
	return err == nil
}
