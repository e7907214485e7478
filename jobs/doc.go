// Package jobs holds job specifications and applications. The obstacle
// problem of GRIDHPC Sec. VI comes as a plain serial reference (SerialSweep,
// the specification) and as Slab, one node's share of the a·b decomposition
// swept by a persistent pool of cores, bit-for-bit equal to the reference in
// synchronous runs. Around it: Split, Assemble, the true Residual and the
// complementarity check, VTI/raw output, the results store (results.jsonl),
// the computing-gain tables of the paper (Tables III and IV) and their
// terminal chart (RenderGainChart). Job files are read (ParseSpec, LoadSpec)
// and written (FormatSpec, SaveSpec) here, in one schema, and a job's node
// selection is resolved here (NodeSelection.Resolve) for the engine and the
// console alike.
package jobs
