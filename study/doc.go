// Package study reproduces, at small scale, the experiments of GRIDHPC
// (Tables III–VIII): a matrix of runs (problem size × grid configuration ×
// nodes × cores × scheme) read from a strict TOML file, run one after the
// other through engine.Run with the single-node runs that give t1 first,
// every run recorded in the results store. From the study's own records it
// builds the paper's tables (times as Table III, computing gains
// C_g = t1/ts as Table IV), checks the paper's ordering of the schemes
// (async ≥ hybrid ≥ sync in gain on a multi-cluster grid), and draws gain
// against cores per scheme as an SVG or PNG file (gonum/plot) beside the
// terminal chart of jobs.RenderGainChart, which the console's Results view
// draws too.
package study
