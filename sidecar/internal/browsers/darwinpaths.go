package browsers

// darwinTable lists the app bundles in /Applications and ~/Applications.
// Every bundle here names its executable after the app:
// "<root>/Foo.app/Contents/MacOS/Foo".
func darwinTable(getenv func(string) string) table {
	home := getenv("HOME")
	roots := []string{"/Applications"}
	if home != "" {
		roots = append(roots, slashJoin(home, "Applications"))
	}
	app := func(name string) []string {
		paths := make([]string, 0, len(roots))
		for _, r := range roots {
			paths = append(paths, slashJoin(r, name+".app", "Contents", "MacOS", name))
		}
		return paths
	}
	cft := app("Google Chrome for Testing")
	cftCache := puppeteerCache(getenv, home, slashJoin,
		cacheLayout{platform: "mac_arm", exe: "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"},
		cacheLayout{platform: "mac", exe: "chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"},
	)
	return table{
		example: "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		isAbs:   slashIsAbs, appBundles: true,
		join:     slashJoin,
		foldCase: true, // APFS and HFS+ are case-insensitive by default
		advice:   "(on macOS: brew install --cask google-chrome)",
		installs: []install{
			{typ: Chrome, name: "Google Chrome", paths: app("Google Chrome")},
			{typ: Chrome, name: "Google Chrome Beta", paths: app("Google Chrome Beta")},
			{typ: Chrome, name: "Google Chrome Dev", paths: app("Google Chrome Dev")},
			{typ: Chrome, name: "Google Chrome Canary", paths: app("Google Chrome Canary")},

			{typ: Edge, name: "Microsoft Edge", paths: app("Microsoft Edge")},
			{typ: Edge, name: "Microsoft Edge Beta", paths: app("Microsoft Edge Beta")},
			{typ: Edge, name: "Microsoft Edge Dev", paths: app("Microsoft Edge Dev")},
			{typ: Edge, name: "Microsoft Edge Canary", paths: app("Microsoft Edge Canary")},

			// Homebrew's chromium cask also links a "chromium" binary into its bin dir.
			{typ: Chromium, name: "Chromium", paths: app("Chromium"), pathNames: []string{"chromium"}},

			{typ: Brave, name: "Brave", paths: app("Brave Browser")},
			{typ: Brave, name: "Brave Beta", paths: app("Brave Browser Beta")},
			{typ: Brave, name: "Brave Nightly", paths: app("Brave Browser Nightly")},

			{typ: ChromeForTesting, name: "Google Chrome for Testing", paths: cft, cache: cftCache},

			{typ: Vivaldi, name: "Vivaldi", paths: app("Vivaldi")},
			{typ: Vivaldi, name: "Vivaldi Snapshot", paths: app("Vivaldi Snapshot")},
		},
	}
}
