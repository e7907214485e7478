package solve

// Scheme is the iteration scheme of a job (GRIDHPC Sec. VI).
type Scheme string

// Schemes. Hybrid is synchronous inside a cluster and asynchronous between
// clusters.
const (
	Synchronous  Scheme = "sync"
	Asynchronous Scheme = "async"
	Hybrid       Scheme = "hybrid"
)

// Detector names a termination detector.
type Detector string

// Detectors: convergence tokens for synchronous runs (Fig. 6 of GRIDHPC), the
// activity graph for asynchronous runs (Figs. 7–8), and the AIAC chapter's
// timed switch to synchronous iterations to test convergence globally.
const (
	DetectTokens   Detector = "tokens"
	DetectActivity Detector = "activity"
	DetectSwitch   Detector = "switch"
)

// Index is the scheme's place in the paper's order (sync 0, async 1,
// hybrid 2), which picks its marker and colour in charts; -1 for an unknown
// scheme.
func (s Scheme) Index() int {
	switch s {
	case Synchronous:
		return 0
	case Asynchronous:
		return 1
	case Hybrid:
		return 2
	}
	return -1
}
