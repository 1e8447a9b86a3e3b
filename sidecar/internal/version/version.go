// Package version reports what this binary is and where it came from.
// Version, Commit and Source are stamped at link time by the build scripts
// (scripts/lib/build.mjs: `npm run build`, and the npm packages of
// scripts/pack.mjs); a binary built by `go install module@version` or by
// `go build` in a git checkout reports what Go embedded instead
// (runtime/debug.ReadBuildInfo): the module version, or the VCS revision.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/lazyre"
)

// Set with -ldflags "-X .../version.Version=... -X .../version.Commit=...
// -X '.../version.Source=built by npm run build'".
var (
	Version = "dev"
	Commit  = ""
	Source  = ""
)

// Info is the binary's identity, as printed by --version and written to state files.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Platform string `json:"platform"`
	Go       string `json:"go"`
	Source   string `json:"source"` // where the binary came from, e.g. "built by npm run build"
}

// Get returns the stamped version, else what Go embedded in the binary.
// It is worked out once: the status asks for it at every change, and
// debug.ReadBuildInfo parses the embedded build information at each call.
func Get() Info { return get() }

var get = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	i := fromBuild(Version, Commit, Source, bi)
	i.Platform = runtime.GOOS + "/" + runtime.GOARCH
	i.Go = runtime.Version()
	return i
})

// pseudoRevision is the commit at the end of a Go pseudo-version
// (v0.0.0-20260102150405-0123456789ab, v1.2.4-0.20260102150405-0123456789ab+dirty).
var pseudoRevision = lazyre.New(`\d{14}-([0-9a-f]{12})(\+.*)?$`)

// fromBuild works out version, commit and source from the stamped values
// and the build information (nil when the binary has none).
func fromBuild(version, commit, source string, bi *debug.BuildInfo) Info {
	var revision, modVersion, pkg string
	modified := false
	if bi != nil {
		pkg = bi.Path
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			modVersion = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if version == "" || version == "dev" {
		version = "dev"
		if modVersion != "" {
			version = strings.TrimPrefix(modVersion, "v")
		}
	}
	if commit == "" {
		switch {
		case revision != "":
			commit = revision
		case pseudoRevision.MatchString(modVersion):
			commit = pseudoRevision.FindStringSubmatch(modVersion)[1]
		}
		if len(commit) > 12 {
			commit = commit[:12]
		}
		if commit != "" && modified {
			commit += "-modified"
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	if source == "" {
		switch {
		case revision != "":
			// go build or go install run in a git checkout.
			source = "built from a git checkout (go build or go install)"
		case modVersion != "":
			// go install module@version: from the module proxy, no checkout.
			source = "installed by go install " + pkg + "@" + modVersion
		default:
			source = "built from source (go build or go install, no version information)"
		}
	}
	return Info{Version: version, Commit: commit, Source: source}
}

// String is --version's answer: the identity on the first line (what the
// VS Code extension reads), where the binary came from on the second.
func (i Info) String() string {
	return fmt.Sprintf("browser-coordinator %s (commit %s, %s, %s)\n%s", i.Version, i.Commit, i.Platform, i.Go, i.Source)
}
