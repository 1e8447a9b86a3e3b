package browsers

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

var fullVersion = regexp.MustCompile(`^\d+\.\d+\.\d+\.\d+$`)

// needBrowser applies the rule for tests that need a browser: with none
// installed, skip locally but fail under CI.
func needBrowser(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "" {
		t.Skip(why + "; install one (e.g. apt-get install chromium) to run this test")
	}
	t.Fatal(why + ", and CI is set: the CI image must provide a browser")
}

// TestSystemDetect runs detection against this machine's real browsers.
func TestSystemDetect(t *testing.T) {
	d := System()
	found, err := d.Detect(t.Context())
	if err != nil {
		t.Fatalf("Detect: %v", err)
	}
	if len(found) == 0 {
		needBrowser(t, "no browser installed")
	}
	for _, b := range found {
		t.Logf("detected %s %q at %s, version %q", b.Type, b.Name, b.Path, b.Version)
		if !filepath.IsAbs(b.Path) {
			t.Errorf("%s: path %q is not absolute", b.Type, b.Path)
		}
	}
	if !fullVersion.MatchString(found[0].Version) {
		t.Errorf("first browser %s (%s): version %q does not match %s", found[0].Type, found[0].Path, found[0].Version, fullVersion)
	}

	// Where a chromium command exists (Debian's /usr/bin/chromium here), it
	// must be detected as chromium with its version.
	if _, err := exec.LookPath("chromium"); err == nil {
		var chromium *Browser
		for i := range found {
			if found[i].Type == Chromium {
				chromium = &found[i]
				break
			}
		}
		if chromium == nil {
			t.Fatalf("chromium is on PATH but Detect did not report type chromium: %+v", found)
		}
		if !fullVersion.MatchString(chromium.Version) {
			t.Errorf("chromium at %s: version %q does not match %s", chromium.Path, chromium.Version, fullVersion)
		}

		b, err := d.Find(t.Context(), Chromium)
		if err != nil || b != *chromium {
			t.Errorf("Find(chromium) = %+v, %v; want %+v", b, err, *chromium)
		}
	}

	first, err := d.Find(t.Context(), "")
	if err != nil || first != found[0] {
		t.Errorf("Find(\"\") = %+v, %v; want %+v", first, err, found[0])
	}
	again, err := d.FromPath(t.Context(), found[0].Path)
	if err != nil || again.Type != found[0].Type || again.Version != found[0].Version {
		t.Errorf("FromPath(%s) = %+v, %v; want type %s version %s", found[0].Path, again, err, found[0].Type, found[0].Version)
	}
}

func TestSystemFromPathNotExecutable(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "missing", "chrome"), dir} {
		if _, err := System().FromPath(t.Context(), path); !errors.Is(err, ErrNotExecutable) {
			t.Errorf("FromPath(%s): err = %v, want ErrNotExecutable", path, err)
		}
	}
}
