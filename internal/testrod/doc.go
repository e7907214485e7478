// Package testrod is the "test-rod" application the engine's tests run
// (engine and engine/solve, in their test binaries and in the workers they
// start): −u″ = 1 on a rod by Jacobi, with faults to order. One copy for
// both packages' tests; nothing else imports it.
package testrod
