// Package conformance reads the BSPlib conformance suite of apps/bsp
// (testdata/conformance: one small C program per rule of the standard and
// per error case) and judges a run of one of its programs. Each program
// states its expected outcome in its first comment:
//
//	expect: ok ["text process 0 or the last prints"]
//	expect: fail [process N] "text of the error"   (one line per text)
//	procs: 2 4 8                                     (default 1 2 4 8)
//	timeout: 2                                       (seconds, default 60)
//	args: 1000                                       (default none)
//
// The local grid's test (apps/bsp TestConformance) and the multi-host
// harness's (e2e TestBSPConformance) share it, so that both hold every
// program to the same expectation.
package conformance
