package cli

import (
	"flag"
	"io"
	"sync"

	"k8s.io/klog/v2"
)

var klogOnce sync.Once

// quietKlog silences client-go's own logging (klog): its warnings and
// "Unhandled Error" lines would repeat, unformatted, what strata reports
// once as an error. Process-wide, like tuneGC.
func quietKlog() {
	klogOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		klog.SetOutput(io.Discard)
	})
}
