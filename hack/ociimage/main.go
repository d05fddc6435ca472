// Command ociimage writes a container image as an OCI image layout
// (oci-layout, index.json, blobs/sha256/) from directories, one gzip tar
// layer each, reproducibly: the same trees and flags give the same bytes,
// so the same manifest digest (entries sorted, one modification time,
// numeric owners, no build host's names). hack/image.sh (make image)
// prepares the trees and runs it; docs/image.md describes the image.
//
//	go run ./hack/ociimage -out dist/image -ref v0.1.0 -created 2026-11-28T12:00:00Z \
//	    -layer rootfs -comment 'Debian packages' -layer app -comment strata \
//	    -owner home/strata=65532:65532 -user 65532:65532 \
//	    -entrypoint /usr/local/bin/strata -workdir /home/strata -env HOME=/home/strata
//
// It prints the manifest's digest on stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// list is a repeatable flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var layers, comments, owners, env, labels, entrypoint list
	out := fl.String("out", "", "the image layout's directory (must not exist)")
	ref := fl.String("ref", "", "the image's tag, as index.json's org.opencontainers.image.ref.name")
	created := fl.String("created", "", "the creation time, RFC 3339 (the commit's, for a reproducible image); also every file's modification time")
	arch := fl.String("arch", runtime.GOARCH, "the image's architecture")
	user := fl.String("user", "", "the user the image runs as, UID:GID")
	workdir := fl.String("workdir", "", "the working directory")
	fl.Var(&layers, "layer", "a directory whose contents are a layer (repeat, lowest first)")
	fl.Var(&comments, "comment", "what the layer of the same rank holds (its history line; one per -layer)")
	fl.Var(&owners, "owner", "PATH=UID:GID: the owner of PATH and what is under it (default root)")
	fl.Var(&env, "env", "KEY=VALUE of the environment (repeat)")
	fl.Var(&labels, "label", "KEY=VALUE of the configuration's labels (repeat)")
	fl.Var(&entrypoint, "entrypoint", "an argument of the entry point (repeat)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	img, err := image(*out, *ref, *created, layers, comments, owners, labels)
	if err != nil {
		fmt.Fprintf(stderr, "ociimage: %v\n", err)
		return 2
	}
	img.Arch, img.OS = *arch, "linux"
	img.Config.User, img.Config.WorkingDir = *user, *workdir
	img.Config.Env, img.Config.Entrypoint = env, entrypoint
	desc, err := Build(img, *out)
	if err != nil {
		fmt.Fprintf(stderr, "ociimage: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, desc.Digest)
	return 0
}

// image checks the flags and makes the Image they describe, but its
// platform and runtime configuration.
func image(out, ref, created string, layers, comments, owners, labels []string) (Image, error) {
	var img Image
	switch {
	case out == "":
		return img, fmt.Errorf("-out is required")
	case ref == "":
		return img, fmt.Errorf("-ref is required")
	case len(layers) == 0:
		return img, fmt.Errorf("no -layer given")
	case len(comments) != len(layers):
		return img, fmt.Errorf("%d -layer but %d -comment: give one comment per layer", len(layers), len(comments))
	}
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		return img, fmt.Errorf("-created: %w", err)
	}
	own := map[string]Owner{}
	for _, o := range owners {
		path, ids, ok := strings.Cut(o, "=")
		uid, gid, ok2 := strings.Cut(ids, ":")
		u, err1 := strconv.Atoi(uid)
		g, err2 := strconv.Atoi(gid)
		if !ok || !ok2 || err1 != nil || err2 != nil || path == "" || strings.HasPrefix(path, "/") {
			return img, fmt.Errorf("-owner %q: want PATH=UID:GID with a relative PATH", o)
		}
		own[strings.TrimSuffix(path, "/")] = Owner{u, g}
	}
	img.Config.Labels = map[string]string{}
	for _, l := range labels {
		k, v, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return img, fmt.Errorf("-label %q: want KEY=VALUE", l)
		}
		img.Config.Labels[k] = v
	}
	for _, dir := range layers {
		img.Layers = append(img.Layers, LayerSpec{Dir: dir, ModTime: t, Owners: own})
	}
	img.Comment, img.Created, img.RefName = comments, t, ref
	return img, nil
}
