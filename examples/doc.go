// Package examples holds the tests of the example applications beside it.
// Each example is a module of its own (examples/<name>/go.mod, with a replace
// of this module) written only against apps/gridapp and cli, as a user's
// program would be; the tests build it with the go command, check its size,
// and run the binary headless on the local grid.
package examples
