package cli

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/fleet"
)

// serviceSource checks --browser-service and its timeouts. Nothing is asked
// of the service at start: a session opens at the first need (a metered
// fleet bills every session, a probe's too). Its token comes from the
// environment only: a command line is readable by every user.
func (f serveFlags) serviceSource() (*coordinator.Source, error) {
	if f.browserService == "" {
		if f.serviceTimeout != 0 || f.serviceSession != 0 {
			return nil, errors.New("--browser-service-timeout and --browser-service-session go with --browser-service URL")
		}
		return nil, nil
	}
	if f.cdpEndpoint != "" {
		return nil, errors.New("--browser-service and --cdp-endpoint are two different browsers: give one of them")
	}
	for flag, set := range map[string]bool{
		"--browser": f.browser != "", "--browser-path": f.browserPath != "", "--user-data-dir": f.userDataDir != "", "--no-headless": f.noHeadless,
	} {
		if set {
			return nil, fmt.Errorf("--browser-service runs the browser on the service; %s only applies to a browser the coordinator launches", flag)
		}
	}
	for flag, d := range map[string]time.Duration{"--browser-service-timeout": f.serviceTimeout, "--browser-service-session": f.serviceSession} {
		if d < 0 {
			return nil, fmt.Errorf("%s must not be negative, got %s", flag, d)
		}
	}
	return fleet.Source(fleet.Config{URL: f.browserService, Token: os.Getenv(fleet.TokenEnv), StartTimeout: f.serviceTimeout, Session: f.serviceSession})
}
