package coordinator

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
)

// LaunchRequest asks for a launch with some options changed; a nil field
// keeps the current value. The MCP tool and the control API both decode
// into it, so they accept and refuse exactly the same things.
type LaunchRequest struct {
	BrowserType *string `json:"browserType,omitempty"`
	BrowserPath *string `json:"browserPath,omitempty"`
	Headless    *bool   `json:"headless,omitempty"`
	URL         *string `json:"url,omitempty"`
}

// BadRequestError is a request refused before anything was done. It wraps
// why, with the remedies that carries.
type BadRequestError struct{ err error }

func (e *BadRequestError) Error() string { return e.err.Error() }
func (e *BadRequestError) Unwrap() error { return e.err }

func badRequest(format string, a ...any) error {
	return &BadRequestError{err: fmt.Errorf(format, a...)}
}

// change validates r and returns how it changes the options.
func (r LaunchRequest) change() (func(*Options), error) {
	var typ browsers.Type
	if r.BrowserType != nil {
		t, err := browsers.ParseType(*r.BrowserType)
		if err != nil {
			return nil, &BadRequestError{err: err}
		}
		typ = t
	}
	if r.BrowserPath != nil && strings.TrimSpace(*r.BrowserPath) == "" {
		return nil, badRequest("browserPath is empty; give a browser executable's path or leave it out")
	}
	if r.URL != nil {
		if err := CheckURL(*r.URL); err != nil {
			return nil, err
		}
	}
	return func(o *Options) {
		if r.BrowserType != nil {
			o.BrowserType, o.BrowserPath = typ, ""
		}
		if r.BrowserPath != nil {
			o.BrowserPath = *r.BrowserPath
		}
		if r.Headless != nil {
			o.Headless = *r.Headless
		}
		if r.URL != nil {
			o.URL = *r.URL
		}
	}, nil
}

// MaxURL is the longest URL Chromium opens (kMaxURLChars, 2 MiB).
const MaxURL = 2 << 20

// CheckURL accepts the URLs a browser tab can open.
func CheckURL(raw string) error {
	if len(raw) > MaxURL {
		return badRequest("url is %d bytes long; browsers open URLs of up to 2 MiB", len(raw))
	}
	u, err := url.Parse(raw)
	if err == nil {
		switch u.Scheme {
		case "http", "https":
			if u.Host != "" {
				return nil
			}
		case "file", "about", "data", "chrome", "edge", "brave":
			return nil
		}
	}
	shown := raw
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	return badRequest("url %q is not a URL a browser can open; use an absolute http(s)://, file://, about: or data: URL", shown)
}

// LaunchWith validates r and launches: a running browser whose options
// change is relaunched; with only a URL and a browser already running, the
// URL opens in a new tab in front instead.
func (c *Coordinator) LaunchWith(ctx context.Context, r LaunchRequest) (Status, error) {
	if r.BrowserType != nil && *r.BrowserType == state.BackendEveryday {
		return c.launchEveryday(ctx, r)
	}
	change, err := r.change()
	if err != nil {
		return c.Status(), err
	}
	if r.URL != nil {
		if err := c.CheckOpen(*r.URL); err != nil { // before a first launch takes it as its first page
			return c.Status(), err
		}
	}
	if r.BrowserPath != nil {
		if err := c.launchable(ctx, *r.BrowserPath); err != nil {
			return c.Status(), err
		}
	}
	if (r.BrowserType != nil || r.BrowserPath != nil) && c.IsEveryday() {
		// From the user's own browser to one the coordinator launches: the
		// browser must be there before the user's is let go.
		next := c.Options()
		change(&next)
		if _, err := c.resolve(next); err != nil {
			return c.Status(), err
		}
		c.SetSource(nil)
	}
	s, launched, err := c.Launch(ctx, change)
	if err == nil && r.URL != nil && !launched {
		if _, err = c.OpenTab(ctx, *r.URL, true); err == nil {
			s = c.Status()
		}
	}
	return s, err
}

// launchable refuses a browserPath that is neither a browser detection found
// nor the one the coordinator was started with: the tools and the control
// API reach whoever can talk to the coordinator, and must not make it run an
// arbitrary program. Checked before anything is stopped.
func (c *Coordinator) launchable(ctx context.Context, p string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	b, err := c.detect.FromPath(ctx, p)
	if err != nil {
		return &BadRequestError{err: err}
	}
	want := b.Path
	allowed := []string{}
	if start := c.cfg.Options.BrowserPath; start != "" {
		if sb, err := c.detect.FromPath(ctx, start); err == nil {
			allowed = append(allowed, sb.Path)
		}
	}
	found, _ := c.detect.Installed(ctx)
	for _, f := range found {
		allowed = append(allowed, f.Path)
	}
	for _, a := range allowed {
		if samePath(a, want) {
			return nil
		}
	}
	shown := "none"
	if len(allowed) > 0 {
		shown = strings.Join(allowed, ", ")
	}
	return remedy.With(badRequest("browserPath %s is not a browser this coordinator may launch: only a detected browser or the one the coordinator was started with (allowed here: %s)",
		p, shown), remedy.PickDetected, remedy.BrowserPath)
}

// samePath: the same file, by name or through links; a snap launcher (every
// /snap/bin/<app> links to /usr/bin/snap) only by name.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb && filepath.Base(ra) != "snap"
}

// launchEveryday switches to the user's own browser (browserType
// everyday) and connects to it; a URL opens in a new tab in front.
func (c *Coordinator) launchEveryday(ctx context.Context, r LaunchRequest) (Status, error) {
	if r.BrowserPath != nil || r.Headless != nil {
		return c.Status(), badRequest("browserType everyday is your own browser, as it is: it takes no browserPath or headless; " +
			"leave them out, or pick another browserType for a browser the coordinator launches")
	}
	if r.URL != nil {
		if err := CheckURL(*r.URL); err != nil {
			return c.Status(), err
		}
		if err := c.CheckOpen(*r.URL); err != nil {
			return c.Status(), err
		}
	}
	c.SetSource(c.EverydaySource()) // the same source again changes nothing
	_, err := c.ensure(ctx)
	if err == nil && r.URL != nil {
		_, err = c.OpenTab(ctx, *r.URL, true)
	}
	return c.Status(), err
}
