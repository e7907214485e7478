package obstacle

import "github.com/gridtui/gridtui/apps/gridapp"

// Range is a half-open interval of plane indices (gridapp.Range).
type Range = gridapp.Range

// ErrSplit is wrapped by every error Split returns.
var ErrSplit = gridapp.ErrSplit

// Split divides [0, n) into balanced contiguous ranges (gridapp.Split).
func Split(n, parts int) ([]Range, error) { return gridapp.Split(n, parts) }
