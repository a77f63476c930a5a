package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// What the make tests set: the version on the command line, the date
// through SOURCE_DATE_EPOCH (2026-01-02T03:04:05Z); the commit is the
// Makefile's own (git rev-parse HEAD).
const (
	makeVersion = "v9.9.9-test"
	makeEpoch   = "1767323045"
	makeDate    = "2026-01-02T03:04:05Z"
)

// makeTarget runs "make target vars..." at the repository root.
func makeTarget(t *testing.T, target string, vars ...string) {
	t.Helper()
	args := append([]string{"-C", filepath.Join("..", ".."), target, "VERSION=" + makeVersion}, vars...)
	cmd := exec.Command("make", args...)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+makeEpoch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestMakeBuild builds bin/junction as "make build" does (into a
// temporary directory) and checks that it is static and says what the
// Makefile set. It shares the build cache with the other tests, so
// only the link step runs.
func TestMakeBuild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ELF checks are for the Linux binary")
	}
	dir := t.TempDir()
	makeTarget(t, "build", "BIN="+dir)
	bin := filepath.Join(dir, "junction")
	if err := staticELF(bin); err != nil {
		t.Error(err)
	}
	checkBuildSettings(t, bin)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	commit, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	for _, want := range []string{
		"junction " + makeVersion + "\n",
		"\ncommit:   " + strings.TrimSpace(string(commit)), // then ", committed ..." when the go command stamps the VCS
		"\nbuilt:    " + makeDate + "\n",
		"\ngo:       " + runtime.Version() + "\n",
		"\nplatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("version printed\n%s\nwhich lacks %q", out, want)
		}
	}
}

// checkBuildSettings checks the flags the go command recorded in bin
// (with -trimpath it records no -ldflags: the version output shows them).
func checkBuildSettings(t *testing.T, bin string) {
	t.Helper()
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range bi.Settings {
		got[s.Key] = s.Value
	}
	for k, want := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true"} {
		if got[k] != want {
			t.Errorf("build setting %s = %q, want %q", k, got[k], want)
		}
	}
}

// TestMakeRelease runs "make release" for linux/amd64 alone (the other
// platforms take minutes to compile) and checks its SHA256SUMS, and that
// its binary is the one "make build" makes: the same flags and the same
// SOURCE_DATE_EPOCH give the same bytes.
func TestMakeRelease(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("compares with the host's make build")
	}
	bin, dist := t.TempDir(), t.TempDir()
	makeTarget(t, "build", "BIN="+bin)
	makeTarget(t, "release", "DIST="+dist, "PLATFORMS=linux/amd64")
	name := "junction-" + makeVersion + "-linux-amd64"
	release := fileSHA256(t, filepath.Join(dist, name))
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if want := release + "  " + name + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS is %q, want %q", sums, want)
	}
	if build := fileSHA256(t, filepath.Join(bin, "junction")); build != release {
		t.Errorf("make release's %s (%s) differs from make build's (%s)", name, release, build)
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// staticELF returns why the ELF file at path is not a static executable:
// it names an interpreter (the dynamic loader), has a dynamic section, or
// needs shared libraries.
func staticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var problems []error
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			problems = append(problems, fmt.Errorf("%s: program header %v", path, p.Type))
		}
	}
	if f.Section(".dynamic") != nil {
		problems = append(problems, fmt.Errorf("%s: has a .dynamic section", path))
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		problems = append(problems, fmt.Errorf("%s: needs %v", path, libs))
	}
	return errors.Join(problems...)
}

// TestStaticELFRefusesADynamicBinary: the check above fails on the
// dynamically linked shell.
func TestStaticELFRefusesADynamicBinary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs a Linux ELF binary")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	sh, err = filepath.EvalSymlinks(sh)
	if err != nil {
		t.Fatal(err)
	}
	err = staticELF(sh)
	for _, want := range []string{"PT_INTERP", "PT_DYNAMIC", ".dynamic section", "needs ["} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("staticELF(%s) = %v, want an error naming %q", sh, err, want)
		}
	}
	if err != nil && !strings.Contains(err.Error(), sh) {
		t.Errorf("the error does not name %s", sh)
	}
}
