// Command libgridhpc-inproc is libgridhpc_inproc.so (link = "inprocess" of app =
// "exec"); it needs cgo: see main.go.
package main
