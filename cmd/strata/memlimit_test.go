package main

import (
	"testing"
	"testing/fstest"
)

func TestCgroupMemoryLimit(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  int64 // 0: no limit
	}{{
		name: "v2, the container's own cgroup mounted as the root",
		files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("536870912\n"),
		},
		want: 512 << 20,
	}, {
		name: "v2, a limit on an ancestor is lower",
		files: fstest.MapFS{
			"proc/self/cgroup":                          file("0::/kubepods/pod1/c1\n"),
			"sys/fs/cgroup/kubepods/pod1/c1/memory.max": file("max\n"),
			"sys/fs/cgroup/kubepods/pod1/memory.max":    file("1073741824\n"),
			"sys/fs/cgroup/kubepods/memory.max":         file("8589934592\n"),
		},
		want: 1 << 30,
	}, {
		name: "v2 without a limit",
		files: fstest.MapFS{
			"proc/self/cgroup":         file("0::/user.slice\n"),
			"sys/fs/cgroup/memory.max": file("max\n"),
		},
	}, {
		name: "v1, its unlimited value is no limit",
		files: fstest.MapFS{
			"proc/self/cgroup":                           file("5:cpu,cpuacct:/\n4:memory:/process_api/x\n0::/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		},
	}, {
		name: "v1 with a limit, the memory controller beside another",
		files: fstest.MapFS{
			"proc/self/cgroup": file("4:blkio,memory:/pod\n0::/\n"),
			"sys/fs/cgroup/memory/pod/memory.limit_in_bytes": file("2147483648\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes":     file("9223372036854771712\n"),
		},
		want: 2 << 30,
	}, {
		name:  "no cgroup file",
		files: fstest.MapFS{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := cgroupMemoryLimit(tc.files)
			if ok != (tc.want != 0) || (ok && got != tc.want) {
				t.Errorf("cgroupMemoryLimit = %d, %v; want %d", got, ok, tc.want)
			}
		})
	}
}
