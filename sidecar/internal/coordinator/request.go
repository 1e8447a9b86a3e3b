package coordinator

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/browsers"
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

// BadRequestError is a request refused before anything was done.
type BadRequestError struct{ msg string }

func (e *BadRequestError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &BadRequestError{msg: fmt.Sprintf(format, a...)}
}

// change validates r and returns how it changes the options.
func (r LaunchRequest) change() (func(*Options), error) {
	var typ browsers.Type
	if r.BrowserType != nil {
		t, err := browsers.ParseType(*r.BrowserType)
		if err != nil {
			return nil, &BadRequestError{msg: err.Error()}
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

// CheckURL accepts the URLs a browser tab can open.
func CheckURL(raw string) error {
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
	return badRequest("url %q is not a URL a browser can open; use an absolute http(s)://, file://, about: or data: URL", raw)
}

// LaunchWith validates r and launches: a running browser whose options
// change is relaunched; with only a URL and a browser already running, the
// URL opens in a new tab in front instead.
func (c *Coordinator) LaunchWith(ctx context.Context, r LaunchRequest) (Status, error) {
	change, err := r.change()
	if err != nil {
		return c.Status(), err
	}
	s, launched, err := c.Launch(ctx, change)
	if err == nil && r.URL != nil && !launched {
		if _, err = c.OpenTab(ctx, *r.URL, true); err == nil {
			s = c.Status()
		}
	}
	return s, err
}
