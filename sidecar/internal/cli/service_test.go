package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// --browser-service is checked at start, before anything is asked of any
// service or endpoint; its token never comes from the command line.
func TestBrowserServiceArguments(t *testing.T) {
	_, env := stateDir(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--browser-service", "https://svc.example?token=s3cr3t"}, "put the token in the environment variable BROWSERLESS_TOKEN"},
		{[]string{"--browser-service", "https://me:s3cr3t@svc.example"}, "BROWSERLESS_TOKEN"},
		{[]string{"--browser-service", "svc.example:3000"}, "not a browser service URL"},
		{[]string{"--browser-service", "http://127.0.0.1:9", "--cdp-endpoint", "http://127.0.0.1:9"}, "two different browsers"},
		{[]string{"--browser-service", "http://127.0.0.1:9", "--browser", "chrome"}, "--browser only applies to a browser the coordinator launches"},
		{[]string{"--browser-service", "http://127.0.0.1:9", "--browser-service-timeout", "-1s"}, "must not be negative"},
		{[]string{"--browser-service-timeout", "5m"}, "go with --browser-service URL"},
	} {
		r := run(t, env, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "s3cr3t") || r.stdout != "" {
			t.Errorf("%v: exit %d, stderr %q; want 1 with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// Nothing is asked of the service at start: the coordinator is up, on the
// service backend, idle, even with no service at that address.
func TestBrowserServiceStartsNothing(t *testing.T) {
	dir, env := stateDir(t)
	s := serveArgs(t, dir, env, "--browser-service", "http://127.0.0.1:9")
	s.waitFor(t, "the service backend", func(f state.File) bool { return f.Backend == "service" })
	r := run(t, env, "status", "--json")
	var files []state.File
	if err := json.Unmarshal([]byte(r.stdout), &files); err != nil || len(files) != 1 || files[0].State != "idle" || files[0].Browser != nil {
		t.Fatalf("status: %s", r.stdout)
	}
	s.stdin.Close()
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
