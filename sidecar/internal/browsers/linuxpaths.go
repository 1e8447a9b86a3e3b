package browsers

// linuxTable lists where the official .deb/.rpm packages, distribution
// packages and snaps put each browser. Wrapper scripts in /usr/bin come first
// (they set up the environment the binary expects), the binary in /opt after.
//
// Flatpak installs are out of scope: their exports need `flatpak run`.
func linuxTable(getenv func(string) string) table {
	return table{
		example: "/usr/bin/chromium",
		isAbs:   slashIsAbs,
		join:    slashJoin,
		advice:  "(on Debian/Ubuntu: apt-get install chromium)",
		installs: []install{
			{typ: Chrome, name: "Google Chrome",
				paths:     []string{"/usr/bin/google-chrome-stable", "/usr/bin/google-chrome", "/opt/google/chrome/chrome"},
				pathNames: []string{"google-chrome-stable", "google-chrome"}},
			{typ: Chrome, name: "Google Chrome Beta",
				paths:     []string{"/usr/bin/google-chrome-beta", "/opt/google/chrome-beta/chrome"},
				pathNames: []string{"google-chrome-beta"}},
			{typ: Chrome, name: "Google Chrome Dev",
				paths:     []string{"/usr/bin/google-chrome-unstable", "/opt/google/chrome-unstable/chrome"},
				pathNames: []string{"google-chrome-unstable"}},
			{typ: Chrome, name: "Google Chrome Canary",
				paths:     []string{"/usr/bin/google-chrome-canary", "/opt/google/chrome-canary/chrome"},
				pathNames: []string{"google-chrome-canary"}},

			{typ: Edge, name: "Microsoft Edge",
				paths:     []string{"/usr/bin/microsoft-edge-stable", "/usr/bin/microsoft-edge", "/opt/microsoft/msedge/msedge"},
				pathNames: []string{"microsoft-edge-stable", "microsoft-edge"}},
			{typ: Edge, name: "Microsoft Edge Beta",
				paths:     []string{"/usr/bin/microsoft-edge-beta", "/opt/microsoft/msedge-beta/msedge"},
				pathNames: []string{"microsoft-edge-beta"}},
			{typ: Edge, name: "Microsoft Edge Dev",
				paths:     []string{"/usr/bin/microsoft-edge-dev", "/opt/microsoft/msedge-dev/msedge"},
				pathNames: []string{"microsoft-edge-dev"}},

			// Debian, Arch, openSUSE: /usr/bin/chromium; Fedora: chromium-browser;
			// Ubuntu: chromium-browser is a shim for the snap.
			{typ: Chromium, name: "Chromium",
				paths:     []string{"/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium"},
				pathNames: []string{"chromium", "chromium-browser"}},

			{typ: Brave, name: "Brave",
				paths:     []string{"/usr/bin/brave-browser-stable", "/usr/bin/brave-browser", "/opt/brave.com/brave/brave", "/snap/bin/brave"},
				pathNames: []string{"brave-browser-stable", "brave-browser", "brave"}},
			{typ: Brave, name: "Brave Beta",
				paths:     []string{"/usr/bin/brave-browser-beta", "/opt/brave.com/brave-beta/brave"},
				pathNames: []string{"brave-browser-beta"}},
			{typ: Brave, name: "Brave Nightly",
				paths:     []string{"/usr/bin/brave-browser-nightly", "/opt/brave.com/brave-nightly/brave"},
				pathNames: []string{"brave-browser-nightly"}},

			// Chrome for Testing has no linux arm64 build.
			{typ: ChromeForTesting, name: "Google Chrome for Testing",
				cache: puppeteerCache(getenv, getenv("HOME"), slashJoin,
					cacheLayout{platform: "linux", exe: "chrome-linux64/chrome"})},

			{typ: Vivaldi, name: "Vivaldi",
				paths:     []string{"/usr/bin/vivaldi-stable", "/usr/bin/vivaldi", "/opt/vivaldi/vivaldi"},
				pathNames: []string{"vivaldi-stable", "vivaldi"}},
			{typ: Vivaldi, name: "Vivaldi Snapshot",
				paths:     []string{"/usr/bin/vivaldi-snapshot", "/opt/vivaldi-snapshot/vivaldi"},
				pathNames: []string{"vivaldi-snapshot"}},
		},
	}
}
