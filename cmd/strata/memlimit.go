package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
)

// containerMemoryLimit sets Go's soft memory limit to nine tenths of the
// memory limit of the cgroup strata runs in (a pod's limits.memory), when
// there is one and GOMEMLIMIT is not set. Without it the collector lets
// the heap grow to twice what is live before it runs, and a runner near
// its pod's limit is killed for memory it would have freed; with it, it
// collects harder as the limit nears (Prometheus does the same).
func containerMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	if limit, ok := cgroupMemoryLimit(os.DirFS("/")); ok {
		debug.SetMemoryLimit(limit / 10 * 9)
	}
}

// cgroupMemoryLimit is the lowest memory limit of the cgroup of this
// process and its ancestors, read from fsys (the root file system):
// cgroup v2's memory.max, else v1's memory.limit_in_bytes; false when no
// limit is set or none can be read.
func cgroupMemoryLimit(fsys fs.FS) (int64, bool) {
	data, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	var v1, v2 string // the process's cgroup in each hierarchy
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ",memory,"):
			v1 = parts[2]
		}
	}
	if v1 != "" {
		return lowestLimit(fsys, "sys/fs/cgroup/memory", v1, "memory.limit_in_bytes")
	}
	if v2 != "" {
		return lowestLimit(fsys, "sys/fs/cgroup", v2, "memory.max")
	}
	return 0, false
}

// lowestLimit reads file in the cgroup dir of mount and in each of its
// ancestors, and returns the lowest limit set. In a container the mount
// is the container's own cgroup, which the path from /proc does not name
// there: the mount's root is read as well.
func lowestLimit(fsys fs.FS, mount, cgroup, file string) (int64, bool) {
	lowest, found := int64(math.MaxInt64), false
	for dir := path.Clean("/" + cgroup); ; dir = path.Dir(dir) {
		data, err := fs.ReadFile(fsys, path.Join(mount, dir, file))
		if err == nil {
			// "max" (v2) and v1's page-rounded MaxInt64 mean no limit.
			if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 && n < 1<<62 {
				lowest, found = min(lowest, n), true
			}
		}
		if dir == "/" {
			return lowest, found
		}
	}
}
