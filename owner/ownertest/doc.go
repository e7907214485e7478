// Package ownertest plays a desktop's owner in tests of the owner policy
// (package owner): an owner at a terminal, a pseudo-terminal whose login
// session a utmp file of the test's own lists, read through gopsutil's
// HOST_VAR, so that nothing on the machine changes. The test moves the
// terminal's last input (Away) or types on it (Types), and the owner
// policy's sampler sees the session idle or active as `w` would.
package ownertest
