// Package rmnptest holds the helpers rmnp's and rmnp/gateway's tests share
// (they were copied between the two): the test run's id and secret, a
// listen address per transport, a test's context, the goroutine-leak
// check and numbered messages. It does not import rmnp, so that rmnp's
// own (internal) tests can use it; nothing but tests imports it.
package rmnptest
