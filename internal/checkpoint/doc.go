// Package checkpoint is the container a part's checkpoint travels and rests
// in: a header naming the run, the problem and decomposition (an identity
// hash), the part's rank and the iteration it was taken at, then the
// application's bytes (gridapp.Checkpointer), then a CRC-32C of it all. A
// checkpoint is refused — never restored — when it is truncated, corrupted,
// or of another run, problem, decomposition or rank; the error says which
// and why. Dir keeps a part's last two checkpoints on disk, written
// atomically (a temporary file, fsync, rename), so that a torn write leaves
// the previous one usable. The format is in format.go's comment.
package checkpoint
