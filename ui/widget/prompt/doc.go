// Package prompt is the console's prompt widget, with its own Model, KeyMap
// and Styles: the passphrase of an identity file or the answers to a
// server's keyboard-interactive challenge, typed in a dialog, masked unless
// a question allows echo. Update says whether the prompt was answered or
// refused; the console hands the answers on and drops them.
package prompt
