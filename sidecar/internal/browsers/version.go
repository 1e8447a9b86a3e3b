package browsers

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
)

// versionInOutput matches a dotted version of three or four numbers, so that
// "Debian GNU/Linux 12" in the same line is never taken for it.
var versionInOutput = lazyre.New(`\b\d+\.\d+\.\d+(?:\.\d+)?\b`)

// parseVersionOutput returns the first version number in the output of
// "<browser> --version", e.g. "156.0.8078.79" from
// "Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)", or "".
func parseVersionOutput(out string) string {
	return versionInOutput.FindString(out)
}

// parseVersion splits a dotted numeric version ("120.0.6099.71") into its
// numbers. It needs at least two parts and nothing but digits and dots.
func parseVersion(s string) ([]int, bool) {
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return nil, false
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return nil, false
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, false
		}
		nums[i] = n
	}
	return nums, true
}

// compareVersions compares dotted versions number by number (so 120.0.6099.9
// < 120.0.6099.71); missing parts count as 0. Unparsable versions sort before
// parsable ones and compare equal to each other.
func compareVersions(a, b string) int {
	va, okA := parseVersion(a)
	vb, okB := parseVersion(b)
	switch {
	case !okA && !okB:
		return 0
	case !okA:
		return -1
	case !okB:
		return 1
	}
	for i := range max(len(va), len(vb)) {
		var x, y int
		if i < len(va) {
			x = va[i]
		}
		if i < len(vb) {
			y = vb[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// pickHighestVersion returns the highest of names that is a four-part
// version ("120.0.6099.71"), the form Chromium-family installers give the
// directory next to the executable on Windows, or "" if none is.
func pickHighestVersion(names []string) string {
	best := ""
	for _, n := range names {
		if v, ok := parseVersion(n); !ok || len(v) != 4 {
			continue
		}
		if best == "" || compareVersions(n, best) > 0 {
			best = n
		}
	}
	return best
}

// versionFromSiblingDirs reads the version of a Windows Chromium-family
// browser without running it: the installer puts the DLLs in a directory
// named by the version next to the executable
// (...\Application\chrome.exe and ...\Application\120.0.6099.71\). During an
// update old and new directories coexist; the highest is the one that runs
// next. A Chrome for Testing build without such a directory falls back to the
// version in its Puppeteer cache directory name.
func versionFromSiblingDirs(exe string) (string, error) {
	dir := filepath.Dir(exe)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read version directories next to %s: %w", exe, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if v := pickHighestVersion(names); v != "" {
		return v, nil
	}
	if v := versionFromCachePath(exe); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("no version-named directory next to %s", exe)
}

// versionFromCachePath returns the version in a Puppeteer cache path
// (.../chrome/win64-120.0.6099.109/chrome-win64/chrome.exe → 120.0.6099.109),
// or "". Both separators are accepted.
func versionFromCachePath(p string) string {
	segs := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
	for i := 0; i+1 < len(segs); i++ {
		if !strings.HasPrefix(segs[i+1], "chrome-") {
			continue
		}
		_, v, ok := strings.Cut(segs[i], "-")
		if _, valid := parseVersion(v); ok && valid {
			return v
		}
	}
	return ""
}

// appBundle returns the .app directory that contains the macOS executable exe
// (".../Google Chrome.app/Contents/MacOS/Google Chrome" →
// ".../Google Chrome.app").
func appBundle(exe string) (string, bool) {
	const marker = ".app/Contents/MacOS/"
	i := strings.LastIndex(exe, marker)
	if i < 0 {
		return "", false
	}
	return exe[:i+len(".app")], true
}

// versionFromAppBundle reads CFBundleShortVersionString from the Info.plist
// of the app bundle that contains exe, following symlinks first (Homebrew
// links /opt/homebrew/bin/chromium into Chromium.app).
func versionFromAppBundle(exe string) (string, error) {
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	bundle, ok := appBundle(filepath.ToSlash(exe))
	if !ok {
		return "", fmt.Errorf("%s is not inside an .app bundle (.../Name.app/Contents/MacOS/Name), so it has no Info.plist to read the version from", exe)
	}
	plist := filepath.Join(filepath.FromSlash(bundle), "Contents", "Info.plist")
	data, err := os.ReadFile(plist)
	if err != nil {
		return "", fmt.Errorf("read browser version: %w", err)
	}
	v, err := plistString(data, "CFBundleShortVersionString")
	if err != nil {
		return "", fmt.Errorf("read browser version from %s: %w", plist, err)
	}
	return v, nil
}

// errPlistKeyMissing: the top-level dict has no such key.
var errPlistKeyMissing = errors.New("key not found")

// plistString returns the string value of key in the top-level dict of an
// XML property list. Binary plists are rejected: browsers ship XML ones.
func plistString(data []byte, key string) (string, error) {
	if bytes.HasPrefix(data, []byte("bplist")) {
		return "", errors.New("binary property list; only XML plists are read (convert with: plutil -convert xml1 <file>)")
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	depth := 0 // 1 inside <plist>, 2 inside its <dict>
	want := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("%s: %w", key, errPlistKeyMissing)
		}
		if err != nil {
			return "", fmt.Errorf("parse property list: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth < 2 {
				wantName := map[int]string{0: "plist", 1: "dict"}[depth]
				if t.Name.Local != wantName {
					return "", fmt.Errorf("parse property list: got <%s>, want <%s>", t.Name.Local, wantName)
				}
				depth++
				continue
			}
			// A direct child of the top-level dict: a <key> or a value.
			if t.Name.Local == "key" {
				var k string
				if err := dec.DecodeElement(&k, &t); err != nil {
					return "", fmt.Errorf("parse property list: %w", err)
				}
				want = strings.TrimSpace(k) == key
				continue
			}
			if want {
				if t.Name.Local != "string" {
					return "", fmt.Errorf("%s is a <%s>, not a <string>", key, t.Name.Local)
				}
				var v string
				if err := dec.DecodeElement(&v, &t); err != nil {
					return "", fmt.Errorf("parse property list: %w", err)
				}
				return strings.TrimSpace(v), nil
			}
			if err := dec.Skip(); err != nil { // nested dicts and arrays
				return "", fmt.Errorf("parse property list: %w", err)
			}
		case xml.EndElement:
			depth--
			if depth < 2 {
				return "", fmt.Errorf("%s: %w", key, errPlistKeyMissing)
			}
		}
	}
}
