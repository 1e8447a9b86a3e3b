package access

import (
	"errors"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/portowner"
)

// OwnUser serves only this user: a loopback connection whose other end is
// another local user's socket is closed as soon as it is accepted, before a
// byte is read, so it learns nothing and holds no connection slot. The
// secret or token that the surface asks for stays the first guard (another
// user may have read it in a command line); this is the second. Where the
// system cannot say who connects (portowner.Peer: only Linux can
// today), the secret or token alone guards the surface. A
// connection from another machine (a surface that listens on the LAN with a
// token) is not a local user's and is left to the token.
func OwnUser(ln net.Listener, log *slog.Logger) net.Listener {
	return &ownUserListener{Listener: ln, log: log, me: os.Geteuid()}
}

type ownUserListener struct {
	net.Listener
	log *slog.Logger
	me  int

	mu      sync.Mutex
	refused int       // since the last log line
	logged  time.Time // when the last line was written
	unknown bool      // the system could not say, once: logged
}

func (l *ownUserListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if !IsLoopback(c.RemoteAddr().String()) {
			return c, nil
		}
		uid, err := portowner.Peer(c)
		switch {
		case err == nil && uid == l.me:
			return c, nil
		case err == nil:
			l.refuse(uid)
			c.Close()
		case errors.Is(err, portowner.ErrUnknown):
			return c, nil
		default:
			l.cannotTell(err)
			return c, nil
		}
	}
}

// refuse logs refused connections, at most one line every ten seconds: a
// flood from another user must not flood the log.
func (l *ownUserListener) refuse(uid int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.refused++
	if time.Since(l.logged) < 10*time.Second {
		return
	}
	l.log.Warn("refused connections from another local user: this coordinator serves only the user who started it",
		"uid", uid, "yours", l.me, "connections", l.refused, "address", l.Addr().String())
	l.refused, l.logged = 0, time.Now()
}

func (l *ownUserListener) cannotTell(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.unknown {
		l.unknown = true
		l.log.Warn("cannot tell which user connects; the secret alone guards this port", "error", err)
	}
}
