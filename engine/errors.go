package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// prefix starts every error of the package, once (STYLE.md: errors are
// prefixed with the package).
const prefix = "engine: "

// contextError adds context to an error: it reads "engine: <context>: <err>"
// with err's own "engine: " prefix dropped, so that however deep the chain
// of wrappers ("rank 1", "control message from rank 2", a sentinel such as
// ErrTermination) the text carries the prefix once. It unwraps to err.
type contextError struct {
	context string
	err     error
}

func (e *contextError) Error() string { return prefix + e.context + ": " + bare(e.err.Error()) }
func (e *contextError) Unwrap() error { return e.err }

// wrapErr returns err with context (a format and its arguments) in front,
// after the package prefix; nil for a nil err. Every wrapper of an error
// that may carry the package prefix must use it instead of fmt.Errorf,
// which would repeat the prefix in the middle of the text.
func wrapErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &contextError{context: fmt.Sprintf(format, args...), err: err}
}

// bare drops the package prefix from an error text: a failure's cause
// travels as text (failure.Cause, NodeStatus.Err) and is printed after
// other context ("engine: run failed: node alpha-2: …").
func bare(text string) string { return strings.TrimPrefix(text, prefix) }

// ErrRunAborted is wrapped, together with ErrRunFailed and the context's
// error (context.Canceled or context.DeadlineExceeded), when a run stops
// because its context ended (Ctrl-C, the console's abort, a deadline).
var ErrRunAborted = errors.New("engine: run aborted")

// abortError is the error of a run whose context ended. It names the run
// and why it was interrupted and matches ErrRunAborted, ErrRunFailed, the
// context's error and the cancellation cause (context.Cause) if that is a
// different error.
type abortError struct {
	run    string
	ctxErr error // ctx.Err()
	cause  error // context.Cause(ctx)
}

// newAbortError describes run name ended by ctx (whose context has ended).
func newAbortError(name string, ctx context.Context) *abortError {
	if name == "" {
		name = "(unnamed)"
	}
	e := &abortError{run: name, ctxErr: ctx.Err(), cause: context.Cause(ctx)}
	if e.ctxErr == nil {
		e.ctxErr = context.Canceled // not reached: callers check ctx.Err first
	}
	if e.cause == nil {
		e.cause = e.ctxErr
	}
	return e
}

// reason is the interruption as the report's cause reads it.
func (e *abortError) reason() string { return "interrupted: " + bare(e.cause.Error()) }

func (e *abortError) Error() string {
	return fmt.Sprintf("%srun %s aborted: %s", prefix, e.run, e.reason())
}

func (e *abortError) Unwrap() []error {
	errs := []error{ErrRunAborted, ErrRunFailed, e.ctxErr}
	if e.cause != e.ctxErr {
		errs = append(errs, e.cause)
	}
	return errs
}
