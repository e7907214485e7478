package chart

import "flag"

// update is accepted so that go test ./ui/... -update runs here too (the
// widgets keep no golden files).
var _ = flag.Bool("update", false, "rewrite golden files (none here)")
