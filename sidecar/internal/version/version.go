// Package version reports what this binary is. Version and Commit are stamped
// at link time by scripts/build.mjs (-X); a plain `go build` reports "dev".
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set with -ldflags "-X .../version.Version=... -X .../version.Commit=...".
var (
	Version = "dev"
	Commit  = ""
)

// Info is the binary's identity, as printed by --version and written to state files.
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Platform string `json:"platform"`
	Go       string `json:"go"`
}

// Get returns the stamped version, falling back to the VCS revision Go embeds.
func Get() Info {
	commit := Commit
	if commit == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					commit = s.Value[:12]
				}
			}
		}
	}
	if commit == "" {
		commit = "unknown"
	}
	return Info{
		Version:  Version,
		Commit:   commit,
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Go:       runtime.Version(),
	}
}

func (i Info) String() string {
	return fmt.Sprintf("browser-coordinator %s (commit %s, %s, %s)", i.Version, i.Commit, i.Platform, i.Go)
}
