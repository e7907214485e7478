package common

// ProbeRequestMsg asks the root to probe the hosts' networks again (p in
// the Sites and Network pages).
type ProbeRequestMsg struct{}
