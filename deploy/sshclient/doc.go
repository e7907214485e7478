// Package sshclient is gridtui's SSH client, faithful to OpenSSH: each
// host and jump host is resolved as ssh would (ssh -G, else the config
// files read here: aliases, ProxyJump chains, ProxyCommand, certificates,
// IdentitiesOnly, known_hosts files and StrictHostKeyChecking,
// ConnectTimeout and ServerAliveInterval), host keys are checked with
// explicit first-use acceptance (HostKeyPrompt) and jump hosts verified
// hop by hop, and it authenticates with ssh-agent, identity files
// (PassphrasePrompt) and keyboard-interactive answers (ChallengePrompt).
//
// A Pool holds one connection per host, shared by every session on it
// (Conn.Run, Conn.NewSession, within sshd's MaxSessions); Pool.OpenTunnel
// links two hosts through the console's connections to both, and
// Pool.DialFrom tells whether one reaches the other directly. DialPinned
// is the relay's connection to a host whose key the console verified, and
// SignerAgent the read-only agent it is forwarded.
package sshclient
