package deploy

import (
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
)

// ErrNoBinary means there is no worker binary for a host's OS/arch.
var ErrNoBinary = errors.New("deploy: no matching binary")

// binary is a local file to ship, with its size and sha256.
type binary struct {
	path string
	size int64
	sum  string
}

// binaries chooses and hashes local worker binaries, each file at most once.
type binaries struct {
	override string
	dist     string

	mu    sync.Mutex
	cache map[string]*binaryEntry
}

type binaryEntry struct {
	once sync.Once
	bin  binary
	err  error
}

func newBinaries(opt Options) *binaries {
	return &binaries{override: opt.Binary, dist: opt.dist(), cache: map[string]*binaryEntry{}}
}

// forTarget returns the binary to ship to a goos/goarch host: the override;
// the stripped worker dist/gridtui-worker-goos-goarch (built by make dist)
// when it exists — for the running platform
// only when it comes from the same source revision as the running binary;
// the running binary if it matches; else dist/gridtui-goos-goarch.
func (b *binaries) forTarget(goos, goarch string) (binary, error) {
	target := goos + "/" + goarch
	var p string
	switch {
	case b.override != "":
		p = b.override
	case goos == runtime.GOOS && goarch == runtime.GOARCH:
		exe, err := os.Executable()
		if err != nil {
			return binary{}, fmt.Errorf("deploy: locate running binary: %w", err)
		}
		p = exe
		if lean := filepath.Join(b.dist, leanWorker(goos, goarch)); sameBuild(lean, exe) {
			p = lean
		}
	default:
		p = filepath.Join(b.dist, "gridtui-"+goos+"-"+goarch)
		if lean := filepath.Join(b.dist, leanWorker(goos, goarch)); fileExists(lean) {
			p = lean
		}
		if _, err := os.Stat(p); err != nil {
			return binary{}, fmt.Errorf("%w for %s: the running binary is %s/%s and %s does not exist (build it with make dist)",
				ErrNoBinary, target, runtime.GOOS, runtime.GOARCH, p)
		}
		if err := sameProgram(p, target); err != nil {
			return binary{}, err
		}
	}
	bin, err := b.load(p)
	if err != nil {
		return binary{}, err
	}
	if err := checkELF(p, goos, goarch); err != nil {
		return binary{}, err
	}
	return bin, nil
}

func (b *binaries) load(p string) (binary, error) {
	b.mu.Lock()
	e, ok := b.cache[p]
	if !ok {
		e = &binaryEntry{}
		b.cache[p] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.bin, e.err = hashFile(p) })
	return e.bin, e.err
}

// hashCache remembers local digests across calls (the console deploys again
// and again), keyed by path, size and modification time.
var hashCache sync.Map // string -> binary

func hashFile(p string) (binary, error) {
	st, err := os.Stat(p)
	if err != nil {
		return binary{}, fmt.Errorf("deploy: worker binary %s: %w", p, err)
	}
	key := fmt.Sprintf("%s|%d|%d", p, st.Size(), st.ModTime().UnixNano())
	if b, ok := hashCache.Load(key); ok {
		return b.(binary), nil
	}
	b, err := hashFileNow(p)
	if err == nil {
		hashCache.Store(key, b)
	}
	return b, err
}

func hashFileNow(p string) (binary, error) {
	f, err := os.Open(p)
	if err != nil {
		return binary{}, fmt.Errorf("deploy: worker binary %s: %w", p, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return binary{}, fmt.Errorf("deploy: hash worker binary %s: %w", p, err)
	}
	return binary{path: p, size: n, sum: hex.EncodeToString(h.Sum(nil))}, nil
}

// elfMachines maps GOARCH to ELF machine types.
var elfMachines = map[string]elf.Machine{
	"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "386": elf.EM_386,
	"arm": elf.EM_ARM, "ppc64le": elf.EM_PPC64, "riscv64": elf.EM_RISCV,
	"s390x": elf.EM_S390, "loong64": elf.EM_LOONGARCH,
}

// checkELF refuses an ELF binary built for another machine. Files that are
// not ELF (scripts, Mach-O) are shipped as they are.
func checkELF(p, goos, goarch string) error {
	f, err := elf.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	want, known := elfMachines[goarch]
	if known && f.Machine != want {
		return fmt.Errorf("%w for %s/%s: %s is an ELF %s binary", ErrNoBinary, goos, goarch, p, f.Machine)
	}
	return nil
}

// leanWorker is the file name of the lean worker build for a platform.
func leanWorker(goos, goarch string) string { return "gridtui-worker-" + goos + "-" + goarch }

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// sameProgram refuses a dist binary of another program than the running one:
// a user's own binary (its applications registered, then cli.Main) must not
// ship gridtui's workers, which do not know its applications. Binaries
// without build information are not judged.
func sameProgram(p, target string) error {
	own, ok := debug.ReadBuildInfo()
	bi, err := buildinfo.ReadFile(p)
	if !ok || err != nil || own.Path == "" || bi.Path == "" || own.Path == bi.Path {
		return nil
	}
	return fmt.Errorf("%w for %s: %s is a build of %s, the running program is %s (build it for %s and pass --binary)",
		ErrNoBinary, target, p, bi.Path, own.Path, target)
}

// sameBuild reports whether lean exists and was built from the source
// revision of exe (the same program: the same main package), unmodified (Go's embedded VCS stamps, present by default
// when building in a git checkout; absent with -buildvcs=false), so that a
// stale lean worker is never shipped instead of the running binary.
func sameBuild(lean, exe string) bool {
	if !fileExists(lean) {
		return false
	}
	rev := func(p string) string {
		bi, err := buildinfo.ReadFile(p)
		if err != nil {
			return ""
		}
		var r, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				r = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if modified != "false" || r == "" {
			return ""
		}
		return bi.Path + "@" + r
	}
	r := rev(exe)
	return r != "" && r == rev(lean)
}
