// Package examples holds the tests of the example applications beside it.
// examples/rod is a Go module of its own (go.mod with a replace of this
// module) written only against apps/gridapp and cli, as a user's program
// would be; the tests build it with the go command, check its size, and run
// the binary headless and from its console on the local grid.
// examples/c-poisson, examples/python-poisson and examples/fortran are
// programs written against gridhpc.h (C), gridhpc.py and gridhpc.f90, run
// with app = "exec"; apps/exec's tests build and run them.
package examples
