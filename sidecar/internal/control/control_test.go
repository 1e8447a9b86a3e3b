package control

import (
	"context"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

func start(t *testing.T) (*coordinator.Coordinator, Client) {
	t.Helper()
	return startWith(t, testutil.BrowserPath(t))
}

// startWith starts a coordinator whose --browser-path is browserPath.
func startWith(t *testing.T, browserPath string) (*coordinator.Coordinator, Client) {
	t.Helper()
	dir := testutil.ShortDir(t)
	c, err := coordinator.New(coordinator.Config{StateDir: dir, Options: coordinator.Options{BrowserPath: browserPath, Headless: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.Proxy().SetControl(Handler(c, c.Token()))
	return c, Client{Endpoint: c.Proxy().Base(), Token: c.Token()}
}

func raw(t *testing.T, method, url, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestActions(t *testing.T) {
	c, cl := start(t)
	ctx := context.Background()
	s, err := cl.Do(ctx, ActionStatus, nil)
	if err != nil || s.State != coordinator.Idle || s.ProxyPort != c.Proxy().Port() {
		t.Fatalf("status: %+v %v", s, err)
	}
	headless := true
	s, err = cl.Do(ctx, ActionLaunch, coordinator.LaunchRequest{Headless: &headless})
	if err != nil || s.State != coordinator.Running || s.Browser == nil {
		t.Fatalf("launch: %+v %v", s, err)
	}
	pid := s.Browser.PID
	if s, err = cl.Do(ctx, ActionRestart, nil); err != nil || s.Browser.PID == pid {
		t.Fatalf("restart: %+v %v", s, err)
	}
	if s, err = cl.Do(ctx, ActionStop, nil); err != nil || s.State != coordinator.Stopped {
		t.Fatalf("stop: %+v %v", s, err)
	}
}

func TestRefusals(t *testing.T) {
	c, cl := start(t)
	base := cl.Endpoint + "/coordinator/"
	for _, tc := range []struct {
		name, method, path, token, body string
		code                            int
		want                            string
	}{
		{"no token", "GET", "status", "", "", 401, "bearer token"},
		{"wrong token", "POST", "launch", "nope", "", 401, "bearer token"},
		{"unknown action", "POST", "explode", c.Token(), "", 404, "unknown action"},
		{"GET a launch", "GET", "launch", c.Token(), "", 405, "needs POST"},
		{"POST status", "POST", "status", c.Token(), "", 405, "needs GET"},
		{"not JSON", "POST", "launch", c.Token(), "{headless", 400, "bad launch options"},
		{"unknown field", "POST", "launch", c.Token(), `{"colour":"red"}`, 400, "allowed: browserType"},
		{"wrong type", "POST", "launch", c.Token(), `{"headless":"yes"}`, 400, "bad launch options"},
		{"unknown browser", "POST", "launch", c.Token(), `{"browserType":"firefox"}`, 400, "unknown browser type"},
		{"bad url", "POST", "launch", c.Token(), `{"url":"nope"}`, 400, "not a URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := raw(t, tc.method, base+tc.path, tc.token, tc.body)
			if code != tc.code || !strings.Contains(body, tc.want) || !strings.HasPrefix(body, `{"error":`) {
				t.Fatalf("got %d %s; want %d with %q", code, body, tc.code, tc.want)
			}
		})
	}
	if s := c.Status(); s.State != coordinator.Idle {
		t.Fatalf("refused requests changed the state: %s", s.State)
	}
	// The client reports the error body's message.
	if _, err := (Client{Endpoint: cl.Endpoint, Token: "x"}).Do(context.Background(), ActionStatus, nil); err == nil || !strings.Contains(err.Error(), "bearer token") {
		t.Fatalf("client error: %v", err)
	}
}

func TestLaunchFailureIs502WithStatus(t *testing.T) {
	// A coordinator started with --browser-path naming something that is
	// not a browser: launching it is allowed, and fails.
	_, cl := startWith(t, "/bin/false")
	s, err := cl.Do(context.Background(), ActionLaunch, coordinator.LaunchRequest{})
	if err == nil || !strings.Contains(err.Error(), "exited before it was ready") || s.ProxyPort == 0 {
		t.Fatalf("launch of a failing browser: %+v %v", s, err)
	}
	code, body := raw(t, "POST", cl.Endpoint+"/coordinator/launch", cl.Token, `{}`)
	if code != http.StatusBadGateway || !strings.Contains(body, `"status":`) {
		t.Fatalf("got %d %s", code, body)
	}
}

func TestOnlyBrowsersLaunch(t *testing.T) {
	c, cl := start(t)
	for _, p := range []string{"/bin/sh", "sh", "/bin/false"} {
		path := p
		code, body := raw(t, "POST", cl.Endpoint+"/coordinator/launch", cl.Token, `{"browserPath":`+strconv.Quote(path)+`}`)
		if code != http.StatusBadRequest || !strings.Contains(body, "not a browser this coordinator may launch") {
			t.Fatalf("%s: %d %s", p, code, body)
		}
	}
	if s := c.Status(); s.State != coordinator.Idle {
		t.Fatalf("a refused launch changed the state: %s", s.State)
	}
	// The detected browser by its path is fine, and the scheme's case does not matter.
	path := testutil.BrowserPath(t)
	req, _ := http.NewRequest("POST", cl.Endpoint+"/coordinator/launch", strings.NewReader(`{"browserPath":`+strconv.Quote(path)+`}`))
	req.Header.Set("Authorization", "bearer "+cl.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("launch of %s: %d", path, resp.StatusCode)
	}
}
