package browsers

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// versionTimeout bounds one version read (Detector.readVersion applies it).
const versionTimeout = 5 * time.Second

// versionFromCommand runs "<exe> --version" and parses the version from its
// standard output, falling back to standard error (Debian's chromium wrapper
// script prints shell noise there). The child gets no stdin and never
// inherits our stdout, which belongs to the MCP stream. It is killed when
// ctx ends. Used on Linux and other unixes; on macOS and Windows running the
// binary may open a window.
func versionFromCommand(ctx context.Context, exe string) (string, error) {
	cmd := exec.CommandContext(ctx, exe, "--version")
	var stdout, stderr cappedBuffer
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	// A wrapper script's grandchildren may hold the pipes open after the
	// script is killed; stop waiting for them shortly after.
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	if v := parseVersionOutput(stdout.String()); v != "" {
		return v, nil
	}
	if v := parseVersionOutput(stderr.String()); v != "" {
		return v, nil
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s --version did not finish in time: %w", exe, ctx.Err())
	}
	if runErr != nil {
		return "", fmt.Errorf("run %s --version: %w (stderr: %q)", exe, runErr, firstLine(stderr.String()))
	}
	return "", fmt.Errorf("%s --version printed no version number (stdout: %q)", exe, firstLine(stdout.String()))
}

// cappedBuffer keeps the first 64 KiB written to it and discards the rest,
// so a misbehaving binary cannot grow our memory.
type cappedBuffer struct{ b []byte }

const outputCap = 64 << 10

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := outputCap - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *cappedBuffer) String() string { return string(c.b) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
