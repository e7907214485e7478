// Package jobs holds job specifications and job files, the results store
// (results.jsonl), VTI/raw output of a solution and the computing-gain
// tables of the paper (Tables III and IV). The obstacle problem itself
// lives in apps/obstacle; jobs keeps its former names (Obstacle, Slab,
// Split…) as aliases for the specs, the store and the engine's report.
package jobs
