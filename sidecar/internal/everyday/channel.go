package everyday

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/gorilla/websocket"
)

// The channel: a WebSocket on 127.0.0.1 that the extension opens to this
// coordinator, so that the conversation (CDP above all) crosses one
// process boundary each way instead of three (browser → native host →
// coordinator and back). The native host keeps the handshake: the offer
// (the URL with its secret, and the proof this coordinator will give)
// travels in the coordinator's hello through the host, the one way only
// this user's extension and this user's coordinators share.
//
// Who may open it, checked before the upgrade, each with its own refusal:
//   - this user only: on Linux the peer socket's owner (access.OwnUser: a
//     second local user's connection is closed unread);
//   - the extension only: the Origin a browser writes for it
//     (chrome-extension://<the id the host was started for>); a web page's
//     WebSocket carries its own origin, which never matches;
//   - this link only: the secret in the path, compared in constant time,
//     taken once.
// And who receives it: the extension sends nothing before the first
// message proves the other end is this coordinator (the proof came the
// trusted way too), so a program that took the port after this
// coordinator let go of it learns a spent secret and nothing else.

// channelPath prefixes the path of an offer: /everyday/<secret>.
const channelPath = "/everyday/"

// channels is the Conn's listener for the extension's channel.
type channels struct {
	ln  net.Listener
	srv *http.Server
	log *slog.Logger

	mu      sync.Mutex
	pending *offer // the one offer that may be taken; nil when none
}

// An offer is one link's channel: what the extension is told, and where
// the connection goes once the extension opened it.
type offer struct {
	nativemsg.Channel
	origin   string               // the extension's origin
	accepted chan *websocket.Conn // one, buffered
}

func listenChannels(log *slog.Logger) (*channels, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ch := &channels{ln: access.OwnUser(ln, log), log: log}
	ch.srv = &http.Server{Handler: ch, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	return ch, nil
}

// serve runs until close.
func (ch *channels) serve() {
	if err := ch.srv.Serve(ch.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		ch.log.Warn("the channel for the browser extension stopped", "err", err)
	}
}

func (ch *channels) close() { ch.srv.Close() }

// offer makes a new offer for the extension of id, withdrawing any other.
func (ch *channels) offer(extensionID string) *offer {
	o := &offer{
		Channel: nativemsg.Channel{Secret: randomHex(), Proof: randomHex()},
		origin:  "chrome-extension://" + extensionID, accepted: make(chan *websocket.Conn, 1),
	}
	o.URL = "ws://" + ch.ln.Addr().String() + channelPath + o.Secret
	ch.mu.Lock()
	ch.pending = o
	ch.mu.Unlock()
	return o
}

// withdraw takes o back if it is still pending.
func (ch *channels) withdraw(o *offer) {
	ch.mu.Lock()
	if ch.pending == o {
		ch.pending = nil
	}
	ch.mu.Unlock()
}

var channelUpgrader = websocket.Upgrader{
	ReadBufferSize:  64 << 10,
	WriteBufferSize: 64 << 10,
	CheckOrigin:     func(*http.Request) bool { return true }, // ServeHTTP has checked it
}

func (ch *channels) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ref := access.CheckHost(r); ref != nil {
		ch.refuse(w, r, ref.Status, ref.Message)
		return
	}
	secret, ok := strings.CutPrefix(r.URL.Path, channelPath)
	ch.mu.Lock()
	o := ch.pending
	valid := ok && o != nil && subtle.ConstantTimeCompare([]byte(secret), []byte(o.Secret)) == 1
	if valid && r.Header.Get("Origin") == o.origin && websocket.IsWebSocketUpgrade(r) {
		ch.pending = nil // single use
	}
	ch.mu.Unlock()
	switch {
	case !valid:
		ch.refuse(w, r, http.StatusForbidden, "browser-coordinator: this port is the browser extension's channel to its coordinator; a secret it was not given opens nothing")
		return
	case r.Header.Get("Origin") != o.origin:
		ch.refuse(w, r, http.StatusForbidden, "browser-coordinator: refused Origin "+strconv.Quote(r.Header.Get("Origin"))+": only the Browser Coordinator extension may open this channel")
		return
	case !websocket.IsWebSocketUpgrade(r):
		ch.refuse(w, r, http.StatusBadRequest, "browser-coordinator: the extension's channel is a WebSocket")
		return
	}
	ws, err := channelUpgrader.Upgrade(w, r, nil)
	if err != nil {
		ch.log.Warn("the browser extension's channel failed to open", "err", err)
		return
	}
	ws.SetReadLimit(nativemsg.MaxSocketMessage)
	proof := nativemsg.AppendString([]byte(`{"type":"channel","proof":`), o.Proof)
	if err := ws.WriteMessage(websocket.TextMessage, append(proof, '}')); err != nil {
		ws.Close()
		return
	}
	o.accepted <- ws
}

func (ch *channels) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	ch.log.Warn("refused a connection to the browser extension's channel", "status", status, "origin", r.Header.Get("Origin"), "why", msg)
	access.Refuse(w, status, msg)
}

func randomHex() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
