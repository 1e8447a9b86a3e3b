package mcphttp

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// CheckListen checks a --listen address before anything starts: HOST:PORT,
// and a host other than a loopback one (which anyone on the network can
// reach) only with a token.
func CheckListen(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:8931", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--listen %q: the port must be a number from 0 to 65535", addr)
	}
	if !isLoopback(host) && token == "" {
		shown := host
		if shown == "" {
			shown = "every interface"
		}
		return fmt.Errorf("--listen %q: %s is reachable from other machines, and whoever reaches this server drives your browser; "+
			"keep to 127.0.0.1, or require a token with --token (or BROWSER_COORDINATOR_TOKEN)", addr, shown)
	}
	return nil
}

// BindError is a listen address that could not be bound (in use, not an
// address of this machine, a privileged port).
type BindError struct {
	Addr string
	Err  error
}

func (e *BindError) Error() string {
	hint := ""
	if errors.Is(e.Err, syscall.EADDRINUSE) {
		hint = "; another program listens there: pick another port with --listen"
	}
	return fmt.Sprintf("cannot listen on %s: %v%s", e.Addr, e.Err, hint)
}

func (e *BindError) Unwrap() error { return e.Err }

// Listen binds addr (checked with CheckListen) for Serve.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &BindError{Addr: addr, Err: err}
	}
	return ln, nil
}
