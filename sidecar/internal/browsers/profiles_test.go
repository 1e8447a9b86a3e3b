package browsers

import "testing"

func TestProfiles(t *testing.T) {
	for _, tc := range []struct {
		goos  string
		env   map[string]string
		first string // the stable Chrome's folder
		brave string
	}{
		{"linux", map[string]string{"HOME": "/home/u"}, "/home/u/.config/google-chrome", "/home/u/.config/BraveSoftware/Brave-Browser"},
		{"linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg/"}, "/cfg/google-chrome", "/cfg/BraveSoftware/Brave-Browser"},
		{"freebsd", map[string]string{"HOME": "/home/u"}, "/home/u/.config/google-chrome", "/home/u/.config/BraveSoftware/Brave-Browser"},
		{"darwin", map[string]string{"HOME": "/Users/u"}, "/Users/u/Library/Application Support/Google/Chrome", "/Users/u/Library/Application Support/BraveSoftware/Brave-Browser"},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}, `C:\Users\u\AppData\Local\Google\Chrome\User Data`, `C:\Users\u\AppData\Local\BraveSoftware\Brave-Browser\User Data`},
	} {
		d := &Detector{GOOS: tc.goos, Getenv: func(k string) string { return tc.env[k] }}
		ps := d.Profiles()
		if len(ps) < 10 || ps[0].Type != Chrome || ps[0].Dir != tc.first || ps[0].Name != "Google Chrome" {
			t.Errorf("%s %v: first profile %+v of %d", tc.goos, tc.env, ps[0], len(ps))
			continue
		}
		found := false
		for _, p := range ps {
			if p.Type == Brave && p.Name == "Brave" {
				found = p.Dir == tc.brave
				if !found {
					t.Errorf("%s: Brave's profile is %s, want %s", tc.goos, p.Dir, tc.brave)
				}
			}
		}
		if !found {
			t.Errorf("%s: no Brave profile in %+v", tc.goos, ps)
		}
	}
	// No home folder: nothing to look in.
	for _, goos := range []string{"linux", "darwin", "windows"} {
		d := &Detector{GOOS: goos, Getenv: func(string) string { return "" }}
		if ps := d.Profiles(); len(ps) != 0 {
			t.Errorf("%s without a home folder: %+v", goos, ps)
		}
	}
}
