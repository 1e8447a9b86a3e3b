package browsers

import "strings"

// windowsTable lists the install directories under Program Files (per-machine
// installs), Program Files (x86) (older per-machine installs, Edge) and
// %LOCALAPPDATA% (per-user installs, Canary, Chromium's mini_installer).
// Paths are built with winJoin so the table reads the same on any host.
func windowsTable(getenv func(string) string) table {
	home := getenv("USERPROFILE")
	local := getenv("LOCALAPPDATA")
	if local == "" && home != "" {
		local = winJoin(home, "AppData", "Local")
	}
	roots := uniqueFold(
		envOr(getenv, "ProgramFiles", `C:\Program Files`),
		envOr(getenv, "ProgramFiles(x86)", `C:\Program Files (x86)`),
		local,
	)
	under := func(rel string) []string {
		paths := make([]string, 0, len(roots))
		for _, r := range roots {
			paths = append(paths, winJoin(r, rel))
		}
		return paths
	}
	localOnly := func(rel string) []string {
		if local == "" {
			return nil
		}
		return []string{winJoin(local, rel)}
	}
	return table{
		example:  `C:\Program Files\Google\Chrome\Application\chrome.exe`,
		isAbs:    winIsAbs,
		join:     winJoin,
		foldCase: true,
		advice:   "(on Windows: winget install Google.Chrome)",
		installs: []install{
			{typ: Chrome, name: "Google Chrome", paths: under(`Google\Chrome\Application\chrome.exe`), pathNames: []string{"chrome"}},
			{typ: Chrome, name: "Google Chrome Beta", paths: under(`Google\Chrome Beta\Application\chrome.exe`)},
			{typ: Chrome, name: "Google Chrome Dev", paths: under(`Google\Chrome Dev\Application\chrome.exe`)},
			{typ: Chrome, name: "Google Chrome Canary", paths: localOnly(`Google\Chrome SxS\Application\chrome.exe`)},

			{typ: Edge, name: "Microsoft Edge", paths: under(`Microsoft\Edge\Application\msedge.exe`), pathNames: []string{"msedge"}},
			{typ: Edge, name: "Microsoft Edge Beta", paths: under(`Microsoft\Edge Beta\Application\msedge.exe`)},
			{typ: Edge, name: "Microsoft Edge Dev", paths: under(`Microsoft\Edge Dev\Application\msedge.exe`)},
			{typ: Edge, name: "Microsoft Edge Canary", paths: localOnly(`Microsoft\Edge SxS\Application\msedge.exe`)},

			{typ: Chromium, name: "Chromium", paths: under(`Chromium\Application\chrome.exe`), pathNames: []string{"chromium"}},

			{typ: Brave, name: "Brave", paths: under(`BraveSoftware\Brave-Browser\Application\brave.exe`), pathNames: []string{"brave"}},
			{typ: Brave, name: "Brave Beta", paths: under(`BraveSoftware\Brave-Browser-Beta\Application\brave.exe`)},
			{typ: Brave, name: "Brave Nightly", paths: under(`BraveSoftware\Brave-Browser-Nightly\Application\brave.exe`)},

			{typ: ChromeForTesting, name: "Google Chrome for Testing",
				cache: puppeteerCache(getenv, home, winJoin,
					cacheLayout{platform: "win64", exe: `chrome-win64\chrome.exe`},
					cacheLayout{platform: "win32", exe: `chrome-win32\chrome.exe`})},

			{typ: Vivaldi, name: "Vivaldi", paths: under(`Vivaldi\Application\vivaldi.exe`), pathNames: []string{"vivaldi"}},
		},
	}
}

func envOr(getenv func(string) string, name, fallback string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return fallback
}

// uniqueFold drops empty strings and case-insensitive duplicates, keeping order.
func uniqueFold(ss ...string) []string {
	var out []string
next:
	for _, s := range ss {
		if s == "" {
			continue
		}
		for _, o := range out {
			if strings.EqualFold(strings.TrimRight(o, `\`), strings.TrimRight(s, `\`)) {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}
