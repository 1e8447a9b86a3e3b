package mcphttp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// CheckListen checks a --listen address before anything starts: HOST:PORT,
// and a host other than a loopback one (which anyone on the network can
// reach) only with a token the user chose on purpose (ownToken): the token
// made for loopback travels in clear text and was never meant for a LAN.
func CheckListen(addr string, ownToken bool) error {
	isLoopback := access.IsLoopback
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT, e.g. 127.0.0.1:8931", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--listen %q: the port must be a number from 0 to 65535", addr)
	}
	if !isLoopback(host) && !ownToken {
		shown := host
		if shown == "" {
			shown = "every interface"
		}
		return fmt.Errorf("--listen %q: %s is reachable from other machines, and whoever reaches this server drives your browser; "+
			"keep to 127.0.0.1, or set BROWSER_COORDINATOR_TOKEN to a long random token of your own (and put a TLS proxy in front)", addr, shown)
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

// TokenFile is the file in the state folder that keeps the generated token.
const TokenFile = "http-token"

// LoadOrCreateToken returns the token kept in dir/http-token (mode 0600),
// making one the first time: the next start reuses it, so clients'
// configurations keep working. created says it was just made.
func LoadOrCreateToken(dir string) (token, path string, created bool, err error) {
	path = filepath.Join(dir, TokenFile)
	data, err := userfile.Read(path, userfile.Private)
	switch {
	case err == nil:
		token = strings.TrimSpace(string(data))
		if len(token) >= 32 {
			return token, path, false, nil
		}
		// Too short to be ours: make a new one.
	case !userfile.IsNotExist(err):
		return "", path, false, fmt.Errorf("the HTTP token file: %w (remove it to have a new token made)", err)
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", path, false, err
	}
	token = hex.EncodeToString(b[:])
	if err := userfile.Write(path, []byte(token+"\n")); err != nil {
		return "", path, false, fmt.Errorf("keep the HTTP token in %s: %w", path, err)
	}
	return token, path, true, nil
}
