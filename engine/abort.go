package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/gridtui/gridtui/engine/solve"
)

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
func (e *abortError) reason() string { return "interrupted: " + solve.Bare(e.cause.Error()) }

func (e *abortError) Error() string {
	return fmt.Sprintf("%srun %s aborted: %s", solve.Prefix, e.run, e.reason())
}

func (e *abortError) Unwrap() []error {
	errs := []error{ErrRunAborted, ErrRunFailed, e.ctxErr}
	if e.cause != e.ctxErr {
		errs = append(errs, e.cause)
	}
	return errs
}
