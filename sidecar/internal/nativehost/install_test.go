package nativehost

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
)

func TestManifestDirEveryOS(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		goos, browser, udd string
		env                map[string]string
		want               string
	}{
		{"linux", "chrome", "", nil, "/home/u/.config/google-chrome/NativeMessagingHosts"},
		{"linux", "chromium", "", nil, "/home/u/.config/chromium/NativeMessagingHosts"},
		{"linux", "edge", "", nil, "/home/u/.config/microsoft-edge/NativeMessagingHosts"},
		{"linux", "brave", "", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/BraveSoftware/Brave-Browser/NativeMessagingHosts"},
		{"linux", "chrome", "/p/prof", nil, "/p/prof/NativeMessagingHosts"},
		{"darwin", "chrome", "", nil, "/home/u/Library/Application Support/Google/Chrome/NativeMessagingHosts"},
		{"darwin", "edge", "", nil, "/home/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts"},
		{"darwin", "brave", "", nil, "/home/u/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts"},
		{"darwin", "chromium", "", nil, "/home/u/Library/Application Support/Chromium/NativeMessagingHosts"},
		{"windows", "chrome", "", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}, `C:\Users\u\AppData\Local\browser-coordinator\NativeMessagingHosts`},
	}
	for _, c := range cases {
		got, err := ManifestDir(c.goos, c.browser, "/home/u", c.udd, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("%s %s %q: %q, %v; want %q", c.goos, c.browser, c.udd, got, err, c.want)
		}
	}
	if _, err := ManifestDir("windows", "chrome", "", "", env(nil)); err == nil {
		t.Error("Windows without LOCALAPPDATA gave a folder")
	}
	for b, key := range map[string]string{
		"chrome": `Software\Google\Chrome\NativeMessagingHosts`, "edge": `Software\Microsoft\Edge\NativeMessagingHosts`,
		"chromium": `Software\Chromium\NativeMessagingHosts`, "brave": `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts`,
	} {
		if RegistryKey(b) != key {
			t.Errorf("registry key of %s: %q", b, RegistryKey(b))
		}
	}
}

func TestInstallWritesTheManifestOnce(t *testing.T) {
	udd := t.TempDir()
	o := InstallOptions{Browser: "chromium", UserDataDir: udd, Binary: "/opt/bc/browser-coordinator", GOOS: "linux", Home: "/home/u",
		Getenv: func(string) string { return "" }}
	dry := o
	dry.DryRun = true
	r, err := Install(dry)
	if err != nil || !r.Changed {
		t.Fatalf("dry run: %+v, %v", r, err)
	}
	if _, err := os.Stat(r.Manifest); !os.IsNotExist(err) {
		t.Fatal("a dry run wrote the manifest")
	}
	r, err = Install(o)
	if err != nil || !r.Changed || r.Manifest != filepath.Join(udd, "NativeMessagingHosts", HostName+".json") {
		t.Fatalf("install: %+v, %v", r, err)
	}
	var m Manifest
	data, _ := os.ReadFile(r.Manifest)
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != HostName || m.Type != "stdio" || m.Path != o.Binary || len(m.AllowedOrigins) != 1 || m.AllowedOrigins[0] != "chrome-extension://"+extensionID+"/" {
		t.Fatalf("manifest: %+v", m)
	}
	if r, err := Install(o); err != nil || r.Changed {
		t.Fatalf("a second install changed something: %+v, %v", r, err)
	}
	for _, bad := range []InstallOptions{
		{Browser: "firefox", Binary: "/x", GOOS: "linux", Home: "/h"},
		{Browser: "chrome", Binary: "relative/bc", GOOS: "linux", Home: "/h"},
	} {
		if _, err := Install(bad); err == nil {
			t.Errorf("install %+v succeeded", bad)
		}
	}
}

func TestExtraExtensionIDs(t *testing.T) {
	ids := DefaultExtensionIDs(func(string) string { return " abcdefghijklmnopabcdefghijklmnop , nonsense," })
	if len(ids) != 2 || ids[0] != extensionID || ids[1] != "abcdefghijklmnopabcdefghijklmnop" {
		t.Fatalf("ids: %v", ids)
	}
}

func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The id the host serves is the one the extension's manifest key gives it
// (Chrome: the first 32 hex digits of the key's SHA-256, written a–p).
func TestExtensionIDMatchesTheManifestKey(t *testing.T) {
	var m struct{ Key string }
	if err := json.Unmarshal(repoFile(t, "extension/browser/manifest.json"), &m); err != nil {
		t.Fatal(err)
	}
	der, err := base64.StdEncoding.DecodeString(m.Key)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	var id strings.Builder
	for _, b := range sum[:16] {
		id.WriteByte('a' + b>>4)
		id.WriteByte('a' + b&0xf)
	}
	if id.String() != extensionID {
		t.Fatalf("the manifest key gives %s, the host serves %s", id.String(), extensionID)
	}
}

// The extension and the sidecar declare the same protocol and host name.
func TestExtensionSpeaksTheSameProtocol(t *testing.T) {
	src := string(repoFile(t, "extension/browser/src/protocol.ts"))
	m := regexp.MustCompile(`export const PROTOCOL = (\d+);`).FindStringSubmatch(src)
	if m == nil || m[1] != strconv.Itoa(nativemsg.Protocol) {
		t.Fatalf("protocol.ts says %v, nativemsg.Protocol is %d", m, nativemsg.Protocol)
	}
	if !strings.Contains(src, `HOST_NAME = '`+HostName+`'`) {
		t.Fatalf("protocol.ts does not name the host %s", HostName)
	}
}
