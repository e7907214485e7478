package rmnptest

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// RunID and Secret are the tests' run id and shared secret.
var (
	RunID  = [16]byte{'t', 'e', 's', 't', '-', 'r', 'u', 'n'}
	Secret = []byte("0123456789abcdef-test-secret")
)

// ListenAddr is an endpoint's listen address on transport ("tcp" or
// "unix"): a loopback port the kernel picks, or a socket in t's temporary
// directory.
func ListenAddr(t testing.TB, transport string) string {
	if transport == "unix" {
		return "unix://" + filepath.Join(t.TempDir(), "ep.sock")
	}
	return "tcp://127.0.0.1:0"
}

// Ctx is a context that ends after 20 s or with t.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// CheckGoroutines fails t if goroutines started during the test outlive it
// by more than 10 s, printing every goroutine's stack.
func CheckGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := runtime.NumGoroutine()
			if n <= before {
				return
			}
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutine leak: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// Msg is message i's payload: "message-000042".
func Msg(i int) []byte { return []byte(fmt.Sprintf("message-%06d", i)) }
