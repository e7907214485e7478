// Package results is the console's Results page: the runs of the results
// store (jobs.Load), newest first, each opened for its details; the paper's
// Table III (times) and Table IV (gains, with their chart) of the selected
// run's problem; their export as CSV or Markdown. It reads the store in a
// command (Load), watches its file on a tick so that a run of gridtui run
// appears without R (Watch), and says what it read with a LoadedMsg every
// page may take.
package results
