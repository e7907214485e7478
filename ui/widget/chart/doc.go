// Package chart draws the console's terminal charts from plain values: a
// sparkline of residuals on a log scale (Sparkline, SparklineLog) and the
// global residual over time as columns of eighth blocks with its axis
// (Residual). A chart takes no keys and is drawn in the cells it is given.
package chart
