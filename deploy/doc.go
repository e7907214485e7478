// Package deploy reads the sites.toml inventory, connects to grid hosts over SSH
// (known_hosts, agents, identity files, jump hosts), uploads the worker binary,
// and starts and stops workers, both remotely and as local processes for the
// embedded local grid. Progress is reported as plain events that the console and
// the plain-terminal display both consume.
package deploy
