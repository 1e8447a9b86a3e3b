package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	const cmd = "github.com/browser-coordinator/browser-coordinator/sidecar/cmd/browser-coordinator"
	build := func(version string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Path: cmd, Main: debug.Module{Path: "github.com/browser-coordinator/browser-coordinator", Version: version}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	for _, tc := range []struct {
		name                    string
		version, commit, source string
		bi                      *debug.BuildInfo
		want                    Info
	}{
		{"npm run build", "0.1.0", "0123456789ab", "built by npm run build", build("(devel)"),
			Info{Version: "0.1.0", Commit: "0123456789ab", Source: "built by npm run build"}},
		{"go install module@version", "dev", "", "", build("v0.2.0"),
			Info{Version: "0.2.0", Commit: "unknown", Source: "installed by go install " + cmd + "@v0.2.0"}},
		{"go install module@commit (a pseudo-version)", "dev", "", "", build("v0.0.0-20260102150405-0123456789ab"),
			Info{Version: "0.0.0-20260102150405-0123456789ab", Commit: "0123456789ab", Source: "installed by go install " + cmd + "@v0.0.0-20260102150405-0123456789ab"}},
		{"go build in a checkout", "dev", "", "", build("v0.1.1-0.20260102150405-fedcba987654+dirty", "vcs.revision", "fedcba9876543210fedcba9876543210fedcba98", "vcs.modified", "true"),
			Info{Version: "0.1.1-0.20260102150405-fedcba987654+dirty", Commit: "fedcba987654-modified", Source: "built from a git checkout (go build or go install)"}},
		{"go build, VCS stamping off", "dev", "", "", build("(devel)"),
			Info{Version: "dev", Commit: "unknown", Source: "built from source (go build or go install, no version information)"}},
		{"no build information", "dev", "", "", nil,
			Info{Version: "dev", Commit: "unknown", Source: "built from source (go build or go install, no version information)"}},
	} {
		if got := fromBuild(tc.version, tc.commit, tc.source, tc.bi); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

func TestStringPutsTheIdentityOnTheFirstLine(t *testing.T) {
	i := Info{Version: "0.1.0", Commit: "abc", Platform: "linux/amd64", Go: "go1.26.8", Source: "built by npm run build"}
	want := "browser-coordinator 0.1.0 (commit abc, linux/amd64, go1.26.8)\nbuilt by npm run build"
	if got := i.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
