package worker

import (
	"os"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/mem"
)

// AvailableMemory is the memory this process may still use: the host's
// available memory, or what its control group's limit leaves if that is
// less (a container, a batch job's allocation); 0 when unknown.
func AvailableMemory() uint64 {
	var avail uint64
	if vm, err := mem.VirtualMemory(); err == nil {
		avail = vm.Available
	}
	if left, ok := cgroupMemoryLeft(); ok && (avail == 0 || left < avail) {
		avail = left
	}
	return avail
}

// cgroupMemoryLeft is the limit less the usage of this process's memory
// control group (v2, then v1), ok false when there is no limit or it cannot
// be read.
func cgroupMemoryLeft() (uint64, bool) {
	for _, f := range [][2]string{
		{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"},
	} {
		limit, ok1 := readUint(f[0])
		used, ok2 := readUint(f[1])
		if !ok1 || !ok2 || limit >= 1<<62 { // "max", or v1's page-rounded int64 maximum
			continue
		}
		if used >= limit {
			return 0, true
		}
		return limit - used, true
	}
	return 0, false
}

// readUint reads a file holding one decimal number.
func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}
