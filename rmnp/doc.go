// Package rmnp implements the Reconfigurable Multi-Network Protocol of GRIDHPC:
// authenticated connections between workers over several networks at once, the
// paper's Send / Receive / Wait operations with CTRL and DATA flags, and a
// communication mode chosen per link (reliable FIFO for synchronous links,
// latest-value for asynchronous DATA). The wire format is specified in spec.md.
package rmnp
