package solve

import (
	"errors"
	"fmt"
	"strings"
)

// Prefix starts every error of the package, once (STYLE.md: errors are
// prefixed with the package).
const Prefix = "engine: "

// contextError adds context to an error: it reads "engine: <context>: <err>"
// with err's own "engine: " prefix dropped, so that however deep the chain
// of wrappers ("rank 1", "control message from rank 2", a sentinel such as
// ErrTermination) the text carries the prefix once. It unwraps to err.
type contextError struct {
	context string
	err     error
}

func (e *contextError) Error() string { return Prefix + e.context + ": " + Bare(e.err.Error()) }
func (e *contextError) Unwrap() error { return e.err }

// WrapErr returns err with context (a format and its arguments) in front,
// after the package prefix; nil for a nil err. Every wrapper of an error
// that may carry the package prefix must use it instead of fmt.Errorf,
// which would repeat the prefix in the middle of the text.
func WrapErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &contextError{context: fmt.Sprintf(format, args...), err: err}
}

// Bare drops the package prefix from an error text: a failure's cause
// travels as text (failure.Cause, NodeStatus.Err) and is printed after
// other context ("engine: run failed: node alpha-2: …").
func Bare(text string) string { return strings.TrimPrefix(text, Prefix) }

// ErrProtocol is wrapped by every malformed control message (the control
// plane's, engine/worker, and a node state that does not decode).
var ErrProtocol = errors.New("engine: malformed control message")
