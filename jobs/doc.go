// Package jobs holds job specifications and job files, the results store
// (results.jsonl), VTI/raw output of a solution, the computing-gain tables of
// the paper (Tables III and IV) and their terminal chart (RenderGainChart).
// Job files are read (ParseSpec, LoadSpec) and written (FormatSpec, SaveSpec)
// here, in one schema, and a job's node selection is resolved here
// (NodeSelection.Resolve) for the engine and the console alike. The obstacle
// problem itself lives in apps/obstacle; jobs keeps its former names
// (Obstacle, Slab, Split…) as aliases for the specs, the store and the
// engine's report.
package jobs
