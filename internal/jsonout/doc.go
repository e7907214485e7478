// Package jsonout writes the JSON that gridtui's commands print with --json,
// under one naming convention: every object key is snake_case. A struct field
// is named by its json tag, else its toml tag (so a job's keys read as in a
// job file), else its Go name in snake_case (PeakRSS → peak_rss); a
// time.Duration is a number of seconds, and a duration field's key ends in
// _seconds unless its json tag names it (Wall → wall_seconds, a toml key
// wall_time → wall_time_seconds), as the results store's records do. The
// json option "nullzero" writes a zero value as null: a figure that is 0
// when unknown (a gain, a peak RSS) reads as unknown, not as zero.
// Types with their own JSON or text form (time.Time, netip.Addr, node states)
// keep it; an error is its message. Map keys are data and are kept as they
// are.
package jsonout
