package vscodetier

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// fakeEnv builds an Env from maps: env vars, the port file's content (absent
// when nil), ancestors' command lines and which ports answer.
func fakeEnv(vars map[string]string, portFile *string, ancestors [][]string, live ...int) Env {
	return Env{
		Getenv:    func(k string) string { return vars[k] },
		PortFiles: []string{"/run/user/1/browser-coordinator/vscode-cdp-port"},
		ReadFile: func(string) ([]byte, error) {
			if portFile == nil {
				return nil, os.ErrNotExist
			}
			return []byte(*portFile), nil
		},
		Ancestors: func() ([][]string, error) { return ancestors, nil },
		Probe: func(_ context.Context, port int) error {
			if slices.Contains(live, port) {
				return nil
			}
			return errors.New("does not answer")
		},
	}
}

func str(s string) *string { return &s }

func TestDetect(t *testing.T) {
	inside := map[string]string{"TERM_PROGRAM": "vscode"}
	vsPID := map[string]string{"VSCODE_PID": "1234"}
	electron := [][]string{{"/bin/bash"}, {"/usr/share/code/code", "--type=renderer"}, {"/usr/share/code/code", "--remote-debugging-port=9333"}}
	for _, tc := range []struct {
		name     string
		env      Env
		noVSCode bool
		tier     int
		port     int
		source   string
		reason   string
	}{
		{"outside VS Code", fakeEnv(nil, str("9222"), nil, 9222), false, 1, 0, "", "not running inside VS Code"},
		{"--no-vscode wins", fakeEnv(map[string]string{"VSCODE_CDP_PORT": "9222", "TERM_PROGRAM": "vscode"}, nil, nil, 9222), true, 1, 0, "", "detection is off"},
		{"env var, even outside", fakeEnv(map[string]string{"VSCODE_CDP_PORT": "9222"}, nil, nil, 9222), false, 2, 9222, SourceEnv, "from the VSCODE_CDP_PORT"},
		{"env var before the port file", fakeEnv(map[string]string{"VSCODE_CDP_PORT": "9222", "TERM_PROGRAM": "vscode"}, str("9333"), nil, 9222, 9333), false, 2, 9222, SourceEnv, ""},
		{"dead env var falls through to the port file", fakeEnv(map[string]string{"VSCODE_CDP_PORT": "9222", "TERM_PROGRAM": "vscode"}, str("9333\n"), nil, 9333), false, 2, 9333, SourcePortFile, ""},
		{"port file", fakeEnv(vsPID, str("9333\n"), nil, 9333), false, 2, 9333, SourcePortFile, "from the port file"},
		{"stale port file", fakeEnv(inside, str("9333"), nil), false, 1, 0, "", "port file: port 9333"},
		{"half-written port file", fakeEnv(inside, str(""), nil, 9333), false, 1, 0, "", "port file: empty"},
		{"garbage port file", fakeEnv(inside, str("hello"), nil), false, 1, 0, "", `"hello" is not a port`},
		{"parent process", fakeEnv(inside, nil, electron, 9333), false, 2, 9333, SourceParent, "from the parent process"},
		{"parent process with port 0 says nothing", fakeEnv(inside, nil, [][]string{{"code", "--remote-debugging-port=0"}}), false, 1, 0, "", "no --remote-debugging-port"},
		{"nothing known", fakeEnv(inside, nil, nil), false, 1, 0, "", "Enable Native CDP"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Detect(context.Background(), tc.env, tc.noVSCode)
			if d.Tier != tc.tier || d.Port != tc.port || d.Source != tc.source || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("got %+v", d)
			}
		})
	}
}

func TestParsePort(t *testing.T) {
	for in, want := range map[string]int{"9222": 9222, " 9222\n": 9222, "9222\r\nextra": 9222, "": 0, "0": 0, "65536": 0, "-1": 0, "12ab": 0} {
		got, err := ParsePort(in)
		if got != want || (err == nil) != (want != 0) {
			t.Errorf("ParsePort(%q) = %d, %v", in, got, err)
		}
	}
}

func TestRemoteDebuggingPort(t *testing.T) {
	for _, tc := range []struct {
		lines [][]string
		port  int
	}{
		{[][]string{{"a"}, {"b", "--remote-debugging-port=9222"}}, 9222},
		{[][]string{{"b", "--remote-debugging-port", "9223"}}, 9223},
		{[][]string{{"near", "--remote-debugging-port=0"}, {"far", "--remote-debugging-port=9224"}}, 9224},
		{[][]string{{"b", "--remote-debugging-port"}}, 0},
		{nil, 0},
	} {
		got, ok := RemoteDebuggingPort(tc.lines)
		if got != tc.port || ok != (tc.port != 0) {
			t.Errorf("%v: %d %v", tc.lines, got, ok)
		}
	}
}

func TestParseProcArgs2(t *testing.T) {
	var buf []byte
	buf = binary.LittleEndian.AppendUint32(buf, 3)
	buf = append(buf, "/Applications/Visual Studio Code.app/Contents/MacOS/Electron\x00\x00\x00\x00"...)
	buf = append(buf, "Electron\x00--remote-debugging-port=9229\x00/Users/me/project\x00PATH=/usr/bin\x00HOME=/Users/me\x00"...)
	args, err := parseProcArgs2(buf)
	if err != nil || !slices.Equal(args, []string{"Electron", "--remote-debugging-port=9229", "/Users/me/project"}) {
		t.Fatalf("got %q %v", args, err)
	}
	if _, err := parseProcArgs2([]byte{1, 0}); err == nil {
		t.Fatal("short buffer accepted")
	}
}

func TestSplitWindowsCommandLine(t *testing.T) {
	for in, want := range map[string][]string{
		`"C:\Program Files\Microsoft VS Code\Code.exe" --remote-debugging-port=9222`: {`C:\Program Files\Microsoft VS Code\Code.exe`, "--remote-debugging-port=9222"},
		`code.exe  --flag "a b" c`:       {"code.exe", "--flag", "a b", "c"},
		`x "say \"hi\"" \\server\share\`: {"x", `say "hi"`, `\\server\share\`},
		`x "trailing\\"`:                 {"x", `trailing\`},
	} {
		if got := splitWindowsCommandLine(in); !slices.Equal(got, want) {
			t.Errorf("split(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:3000/?id=5fb7&vscodeBrowserReqId=1795":       "http://127.0.0.1:3000/",
		"http://127.0.0.1:3000/page?q=1&id=5fb7&vscodeBrowserReqId=17": "http://127.0.0.1:3000/page?q=1",
		"http://127.0.0.1:3000/?id=7":                                  "http://127.0.0.1:3000/?id=7",
	} {
		if got := cleanURL(in); got != want {
			t.Errorf("cleanURL(%q) = %q, want %q", in, got, want)
		}
	}
}
