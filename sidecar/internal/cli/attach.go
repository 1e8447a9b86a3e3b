package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
)

// attachEndpoint checks --cdp-endpoint and --cdp-header and that the
// endpoint answers now: attach mode never launches, so a browser that is not
// there is an error at start (exit 2), not at the agent's first call.
func (f serveFlags) attachEndpoint(ctx context.Context) (*coordinator.Source, int, bool) {
	if f.cdpEndpoint == "" {
		if len(f.cdpHeaders) > 0 {
			return nil, fail(os.Stderr, "--cdp-header needs --cdp-endpoint"), false
		}
		return nil, 0, true
	}
	for flag, set := range map[string]bool{
		"--browser": f.browser != "", "--browser-path": f.browserPath != "", "--user-data-dir": f.userDataDir != "", "--no-headless": f.noHeadless,
	} {
		if set {
			return nil, fail(os.Stderr, "--cdp-endpoint attaches to a browser that is already running; %s only applies to a browser the coordinator launches", flag), false
		}
	}
	header, err := parseHeaders(f.cdpHeaders)
	if err != nil {
		return nil, fail(os.Stderr, "%v", err), false
	}
	probe, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	e, err := cdp.Probe(probe, f.cdpEndpoint, header)
	switch {
	case errors.Is(err, cdp.ErrUnreachable):
		fmt.Fprintf(os.Stderr, "browser-coordinator: %s\nIs the browser running with remote debugging on (--remote-debugging-port), and are the address and headers right?\n", say(err))
		return nil, exitUnreachable, false
	case err != nil:
		return nil, fail(os.Stderr, "--cdp-endpoint: %v", err), false
	}
	fmt.Fprintf(os.Stderr, "browser-coordinator: attaching to %s at %s\n", e.Product, cdp.Redact(f.cdpEndpoint))
	return coordinator.AttachSource(f.cdpEndpoint, header), 0, true
}

// parseHeaders reads 'Name: value' headers.
func parseHeaders(list []string) (http.Header, error) {
	h := http.Header{}
	for _, raw := range list {
		name, value, ok := strings.Cut(raw, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("--cdp-header %q: want 'Name: value', e.g. --cdp-header 'Authorization: Bearer TOKEN'", raw)
		}
		h.Add(name, value)
	}
	return h, nil
}
