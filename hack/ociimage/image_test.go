package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The user the image runs as (hack/image.sh).
const imageUser = "65532:65532"

// envLayout names an image layout (make image's dist/image) that
// TestImage runs instead of building its own twice; envVersion is the
// version it should report.
const (
	envLayout  = "STRATA_TEST_IMAGE"
	envVersion = "STRATA_TEST_IMAGE_VERSION"
)

// TestImage builds the image with hack/image.sh (make image) twice and
// requires the same manifest digest; then it unpacks the layout into a
// root file system and, in a chroot as the image's user, runs
// `strata --version` and a `strata rollout --once` that commits with the
// image's git and pushes to a remote in the chroot.
//
// It needs root (chroot, and the files' owners), apt-get and dpkg-deb
// (the image is made of Debian's packages, downloaded once into
// STRATA_CACHE); without them, or under -short, it is skipped. With
// STRATA_TEST_IMAGE naming a layout (and STRATA_TEST_IMAGE_VERSION its
// version), it runs that image and builds none.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: builds the image (hack/image.sh) from Debian's packages")
	}
	if os.Geteuid() != 0 {
		t.Skip("skipping: chroot and the image's owners need root")
	}
	for _, tool := range []string{"apt-get", "dpkg-deb", "chroot", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s is not installed", tool)
		}
	}
	dir := t.TempDir()
	layout, version := os.Getenv(envLayout), os.Getenv(envVersion)
	if layout == "" {
		version = "v0.0.0-imagetest"
		layout = filepath.Join(dir, "a")
		first := makeImage(t, version, layout)
		second := makeImage(t, version, filepath.Join(dir, "b"))
		if first != second {
			t.Errorf("two builds gave two images: %s, then %s", first, second)
		}
	}

	root := filepath.Join(dir, "rootfs")
	config := unpack(t, layout, root)
	if config.User != imageUser || len(config.Entrypoint) != 1 || config.Entrypoint[0] != "/usr/local/bin/strata" {
		t.Errorf("config: user %q, entry point %q; want %s, /usr/local/bin/strata", config.User, config.Entrypoint, imageUser)
	}
	for _, sh := range []string{"bin/sh", "usr/bin/sh", "bin/bash", "usr/bin/dash"} {
		if _, err := os.Lstat(filepath.Join(root, sh)); err == nil {
			t.Errorf("the image has a shell: /%s", sh)
		}
	}

	// A container runtime gives the image the devices of the OCI runtime
	// specification (config-linux.md, "Default Devices"); git opens
	// /dev/null and reads /dev/urandom.
	must(t, os.Mkdir(filepath.Join(root, "dev"), 0o755))
	for name, minor := range map[string]int{"null": 3, "zero": 5, "full": 7, "random": 8, "urandom": 9} {
		p := filepath.Join(root, "dev", name)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
			t.Skipf("skipping: cannot make /dev/%s in the root file system: %v", name, err)
		}
		must(t, os.Chmod(p, 0o666))
	}

	out, err := inImage(t, root, config, config.Entrypoint[0], "--version")
	if err != nil || !strings.Contains(out, version) {
		t.Fatalf("strata --version in the image: %v\n%s", err, out)
	}
	rolloutOnce(t, root, config)
	runnerInCluster(t, root, config)
}

// makeImage runs hack/image.sh into out and returns the digest it prints.
func makeImage(t *testing.T, version, out string) string {
	t.Helper()
	cmd := exec.Command("bash", "hack/image.sh", out)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "VERSION="+version)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/image.sh: %v\n%s", err, stderr.Bytes())
	}
	lines := strings.Fields(string(stdout))
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "sha256:") {
		t.Fatalf("hack/image.sh printed no digest: %q\n%s", stdout, stderr.Bytes())
	}
	t.Logf("hack/image.sh: %s", strings.TrimSpace(stderr.String()))
	return lines[len(lines)-1]
}

// unpack extracts the layers of the layout's image, lowest first, into
// root and returns its runtime configuration.
func unpack(t *testing.T, layout, root string) ImageConfig {
	t.Helper()
	var index Index
	readJSON(t, filepath.Join(layout, "index.json"), &index)
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json has %d manifests, want 1", len(index.Manifests))
	}
	var man Manifest
	must(t, json.Unmarshal(blob(t, layout, index.Manifests[0]), &man))
	var cfg Config
	must(t, json.Unmarshal(blob(t, layout, man.Config), &cfg))
	must(t, os.Mkdir(root, 0o755))
	for _, l := range man.Layers {
		if l.MediaType != mediaLayer {
			t.Fatalf("layer %s: media type %s", l.Digest, l.MediaType)
		}
		zr, err := gzip.NewReader(bytes.NewReader(blob(t, layout, l)))
		must(t, err)
		extract(t, tar.NewReader(zr), root)
	}
	return cfg.Config
}

// extract writes a layer's entries under root, with their modes and
// owners.
func extract(t *testing.T, tr *tar.Reader, root string) {
	t.Helper()
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		must(t, err)
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			t.Fatalf("layer entry %q leaves the root", h.Name)
		}
		p := filepath.Join(root, name)
		mode := os.FileMode(h.Mode).Perm()
		if h.Mode&0o1000 != 0 {
			mode |= os.ModeSticky
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.Mkdir(p, mode); err != nil && !errors.Is(err, os.ErrExist) {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
			must(t, err)
			_, err = io.Copy(f, tr)
			must(t, err)
			must(t, f.Close())
		case tar.TypeSymlink:
			must(t, os.Symlink(h.Linkname, p))
			must(t, os.Lchown(p, h.Uid, h.Gid))
			continue
		case tar.TypeLink:
			must(t, os.Link(filepath.Join(root, h.Linkname), p))
			continue
		default:
			t.Fatalf("layer entry %s has type %c", h.Name, h.Typeflag)
		}
		must(t, os.Chown(p, h.Uid, h.Gid))
		must(t, os.Chmod(p, mode))
	}
}

// inImage runs argv in a chroot of root as the image's user, with the
// image's environment and git's identity; it returns stdout and stderr
// together. The working directory is /: strata is given --root, git -C.
func inImage(t *testing.T, root string, cfg ImageConfig, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("chroot", append([]string{"--userspec=" + cfg.User, root}, argv...)...)
	cmd.Env = append(cfg.Env,
		"GIT_AUTHOR_NAME=strata", "GIT_AUTHOR_EMAIL=strata@example.com",
		"GIT_COMMITTER_NAME=strata", "GIT_COMMITTER_EMAIL=strata@example.com")
	out, err := cmd.CombinedOutput()
	t.Logf("in the image: %s\n%s", strings.Join(argv, " "), out)
	return string(out), err
}

// rolloutOnce writes a fleet into the image's home, renders and pushes it
// with the image's strata and git to a repository the host serves over
// HTTP, and runs `strata rollout --once`: it takes the next step (a
// commit, pushed) and stops at the manual gate after it, exit 4
// (docs/exit-codes.md).
//
// The remote is served over HTTP, as a Git host serves it, rather than
// being a path: git runs a path remote's git-receive-pack through sh,
// which the image does not have (an ssh or https remote is run directly).
func rolloutOnce(t *testing.T, root string, cfg ImageConfig) {
	t.Helper()
	fleet := cfg.WorkingDir + "/fleet"
	for name, data := range fleetFiles {
		p := filepath.Join(root, fleet, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	var uid, gid int
	if _, err := fmt.Sscanf(cfg.User, "%d:%d", &uid, &gid); err != nil {
		t.Fatalf("user %q: %v", cfg.User, err)
	}
	must(t, filepath.Walk(filepath.Join(root, fleet), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	}))
	remote, bare := gitServer(t)

	strata, git := cfg.Entrypoint[0], "/usr/bin/git"
	for _, argv := range [][]string{
		{git, "-C", fleet, "init", "-q", "-b", "main"},
		{git, "-C", fleet, "remote", "add", "origin", remote},
		{strata, "--root", fleet, "render"},
		{git, "-C", fleet, "add", "config", "rendered"},
		{git, "-C", fleet, "commit", "-q", "-m", "fleet"},
		{git, "-C", fleet, "push", "-q", "-u", "origin", "main"},
	} {
		if out, err := inImage(t, root, cfg, argv...); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	out, err := inImage(t, root, cfg, strata, "--root", fleet, "rollout", "workload", "demo", "patch-001", "--once")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 4 {
		t.Fatalf("rollout --once: %v, want exit 4 (stopped at a manual gate)\n%s", err, out)
	}
	for _, want := range []string{
		"Promote patch-001 of workload/demo to integration/eu-west1",
		"stopped: the next step enters the manual gate production",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rollout --once printed no %q", want)
		}
	}
	pushed, err := exec.Command("git", "--git-dir", bare, "log", "-1", "--format=%s", "main").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(pushed), "Promote patch-001 of workload/demo to integration/eu-west1") {
		t.Errorf("the remote's last commit is %q (%v), want the step's", pushed, err)
	}
}

// gitServer serves a new bare repository over smart HTTP on loopback with
// the host's git http-backend, pushes allowed, until the test ends; the
// chroot shares the host's network. It returns the repository's URL and
// its directory.
func gitServer(t *testing.T) (url, bare string) {
	t.Helper()
	git, err := exec.LookPath("git")
	must(t, err)
	dir := t.TempDir()
	bare = filepath.Join(dir, "fleet.git")
	for _, args := range [][]string{
		{"init", "-q", "--bare", "-b", "main", bare},
		{"--git-dir", bare, "config", "http.receivepack", "true"},
	} {
		if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	srv := httptest.NewServer(&cgi.Handler{
		Path: git,
		Args: []string{"http-backend"},
		Dir:  dir,
		Env:  []string{"GIT_PROJECT_ROOT=" + dir, "GIT_HTTP_EXPORT_ALL=1"},
	})
	t.Cleanup(srv.Close)
	return srv.URL + "/fleet.git", bare
}

// fleetFiles is a fleet whose nodes declare rollout: {watch: false} (no
// cluster runs it): a rollout step is a commit and a push, then the next.
// patch-001 is at integration/us-east1; production is a manual gate.
var fleetFiles = map[string]string{
	"config/config.yaml": `dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet.git, revision: main}
promotion: {level: regions}
rollout: {watch: false}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      promotion: manual
      regions: [us-east1]
cluster_types: [workload]
`,
	"config/workload/defaults.yaml": `applications:
  default:
    project: default
`,
	"config/workload/demo/values.yaml": `applications:
  demo:
    source:
      repoURL: https://charts.example.com
      chart: demo
      targetRevision: 1.0.0
    destination:
      server: https://kubernetes.default.svc
      namespace: demo
`,
	"config/workload/demo/integration/us-east1/patch-001.yaml": `applications:
  demo:
    source:
      targetRevision: 1.1.0
`,
}
