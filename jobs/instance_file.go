package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
	"time"
)

// fileKey is what says a file has not changed since it was hashed.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
}

// fileHashes caches fileIdentity: tables and predictions ask for the
// instance of every record, many of which name the same matrix.
var fileHashes sync.Map // fileKey -> string

// fileIdentity names a file parameter's value by its content: "sha256:"
// and the first 16 hex digits of the digest, or the path itself when the
// file cannot be read here (a record of another machine, a file since
// removed).
func fileIdentity(path string) string {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return path
	}
	k := fileKey{path, fi.Size(), fi.ModTime()}
	if id, ok := fileHashes.Load(k); ok {
		return id.(string)
	}
	f, err := os.Open(path)
	if err != nil {
		return path
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return path
	}
	id := "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]
	fileHashes.Store(k, id)
	return id
}
