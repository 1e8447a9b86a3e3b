// Package nativehost is `browser-coordinator native-host`: the process the
// browser starts when the Browser Coordinator extension calls
// chrome.runtime.connectNative, and the relay between that extension and
// this user's coordinators.
//
// Why this shape. The extension cannot listen and coordinators cannot reach
// into the browser; native messaging is the one channel Chrome offers, and
// it is the safe one: Chrome starts the host itself, as the user, only for
// the extension ids its manifest allows, and talks to it over stdio. A
// loopback WebSocket instead could be reached (or squatted) by any local
// program or user. So the host sits between the two:
//
//   - It checks the origin Chrome gives as its first argument against the
//     extension ids it allows, and exits otherwise.
//   - After the extension's hello (same protocol, else both sides are told
//     to update) it listens on a Unix socket in the per-user state folder
//     (<state>/everyday/<pid>.sock: the folder is 0700 and this user's, the
//     socket 0600) and announces itself with <pid>.host beside it, which
//     coordinators watch with fsnotify. Unix sockets, not a named pipe or
//     TCP: file permissions decide who may connect, and Go offers AF_UNIX on
//     Linux, macOS and Windows 10+ alike (Windows is built, not tested here).
//   - Each coordinator that connects says hello with its folder and pid and
//     gets a client id; the host stamps that id on everything the
//     coordinator sends and routes the extension's messages back by it.
//     Several coordinators (two project folders) share the one browser; the
//     extension keeps their tabs apart.
//   - When the extension goes (browser quit, extension reloaded, service
//     worker stopped) Chrome closes stdin: the host removes its socket and
//     announcement and exits, and the coordinators see their connection end.
//     The next connectNative starts a new host, which coordinators find
//     through the new announcement.
//
// The host understands only the envelope (type, client, chunks): requests,
// answers and CDP traffic pass through undecoded. A coordinator normally
// talks to the extension over a channel of its own (a loopback WebSocket
// the extension opens with the secret the coordinator's hello offered, see
// nativemsg.Channel): then the host carries only the handshake and each
// side's going away. Without one it relays everything (relay.go), fairly:
// each coordinator's messages go to the extension in bounded pieces, in
// turn with the others', so one large message never holds up the rest.
package nativehost

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Options configure Run.
type Options struct {
	// Origin is the first argument Chrome passes: chrome-extension://<id>/.
	Origin string
	// AllowedIDs are the extension ids the host serves (DefaultExtensionIDs
	// when nil).
	AllowedIDs []string
	// StateDir is the per-user state folder (state.DefaultDir).
	StateDir string
	In       io.Reader // from the extension (stdin)
	Out      io.Writer // to the extension (stdout)
	Version  string
	Logger   *slog.Logger
	// HelloTimeout bounds the wait for the extension's hello, and for a
	// coordinator's; 0 means 10 s.
	HelloTimeout time.Duration
	// FrameStall bounds the wait for the rest of a coordinator's message
	// that has begun; 0 means nativemsg.FrameStall.
	FrameStall time.Duration
}

// ErrOriginRefused is returned when Chrome started the host for an
// extension it does not serve.
var ErrOriginRefused = errors.New("native host started for an extension it does not serve")

// ExtensionIDFromOrigin returns the id in chrome-extension://<id>/, or "".
func ExtensionIDFromOrigin(origin string) string {
	rest, ok := strings.CutPrefix(origin, "chrome-extension://")
	if !ok {
		return ""
	}
	id := strings.TrimSuffix(rest, "/")
	if len(id) != 32 || strings.Trim(id, "abcdefghijklmnop") != "" {
		return ""
	}
	return id
}

// IsOrigin reports whether arg is how Chrome starts a native host (its
// first argument), so the bare binary can be registered as the host.
func IsOrigin(arg string) bool { return strings.HasPrefix(arg, "chrome-extension://") }

// Run serves one extension connection until it closes (stdin EOF) or ctx ends.
func Run(ctx context.Context, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	id, err := servedExtension(o.Origin, o.AllowedIDs)
	if err != nil {
		return err
	}
	if o.HelloTimeout <= 0 {
		o.HelloTimeout = 10 * time.Second
	}

	h := &host{
		log:          log.With("component", "native-host", "pid", os.Getpid()),
		ext:          newFairOut(o.Out),
		clients:      map[string]*client{},
		conns:        map[net.Conn]bool{},
		helloTimeout: o.HelloTimeout,
		stall:        o.FrameStall,
	}
	go h.ext.run()
	defer h.ext.drain() // what was queued is written (a refusal's reason), then the writer ends
	hello, err := h.readHello(o.In, o.HelloTimeout)
	if err != nil {
		return err
	}
	// The extension Chrome started us for, not the one the hello names:
	// coordinators let only this origin open their channel.
	hello.Extension = &nativemsg.Extension{ID: id, Version: versionOf(hello.Extension)}

	dir := nativemsg.Dir(o.StateDir)
	pid := os.Getpid()
	ln, err := listen(dir, pid)
	if err != nil {
		return err
	}
	defer func() {
		os.Remove(nativemsg.HostPath(dir, pid))
		os.Remove(nativemsg.SocketPath(dir, pid))
	}()
	if err := h.announce(dir, pid, hello, o.Version); err != nil {
		ln.Close()
		return err
	}
	return h.serve(ctx, ln, o.In, nativemsg.HostPath(dir, pid))
}

// servedExtension returns the id of the extension in origin (the first
// argument Chrome passes), or ErrOriginRefused when allowed (nil:
// DefaultExtensionIDs) does not have it.
func servedExtension(origin string, allowed []string) (string, error) {
	if allowed == nil {
		allowed = DefaultExtensionIDs(os.Getenv)
	}
	id := ExtensionIDFromOrigin(origin)
	if id == "" || !slices.Contains(allowed, id) {
		return "", remedy.With(fmt.Errorf("%w: %q (allowed: %s); install the Browser Coordinator extension",
			ErrOriginRefused, origin, strings.Join(allowed, ", ")), remedy.ExtensionID)
	}
	return id, nil
}

// listen opens the host's socket in dir, <pid>.sock, for this user alone.
func listen(dir string, pid int) (net.Listener, error) {
	if err := nativemsg.EnsureDir(dir); err != nil {
		return nil, err
	}
	sock := nativemsg.SocketPath(dir, pid)
	_ = os.Remove(sock) // a previous process with our pid left it
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w (is the state folder on a file system that allows sockets? set BROWSER_COORDINATOR_STATE_DIR)", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict %s to this user: %w", sock, err)
	}
	return ln, nil
}

// announce writes <pid>.host into dir for coordinators to find, then answers
// the extension's hello: once the extension hears back, coordinators can
// find the host.
func (h *host) announce(dir string, pid int, hello nativemsg.Hello, version string) error {
	sock := nativemsg.SocketPath(dir, pid)
	h.info = nativemsg.Hello{Type: "hello", Protocol: nativemsg.Protocol, Extension: hello.Extension, Browser: hello.Browser,
		Host: &nativemsg.HostInfo{PID: pid, Version: version}}
	ann := nativemsg.Host{PID: pid, Socket: sock, Protocol: nativemsg.Protocol, Version: version, StartedAt: time.Now().UTC()}
	if hello.Browser != nil {
		ann.Browser = *hello.Browser
	}
	if hello.Extension != nil {
		ann.Extension = *hello.Extension
	}
	if err := nativemsg.WriteHost(dir, ann); err != nil {
		return fmt.Errorf("announce the host in %s: %w", dir, err)
	}
	reply, _ := json.Marshal(nativemsg.Hello{Type: "hello", Protocol: nativemsg.Protocol, Host: h.info.Host})
	if err := h.ext.control(reply); err != nil {
		return fmt.Errorf("answer the extension's hello: %w", err)
	}
	h.log.Info("serving the browser extension", "browser", ann.Browser.Name, "browserVersion", ann.Browser.Version, "socket", sock)
	return nil
}

// serve accepts coordinators on ln and relays the extension's messages
// from in until the extension closes it or ctx ends; then it withdraws the
// announcement at hostPath, closes every coordinator's connection and waits
// for their readers.
func (h *host) serve(ctx context.Context, ln net.Listener, in io.Reader, hostPath string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		h.accept(ln)
	}()
	// The extension reader ends when Chrome closes stdin. When ctx ends first
	// (a signal) stdin may stay open and the reader blocked in it: the
	// process is exiting then, so it is not waited for.
	readErr := make(chan error, 1)
	go func() {
		readErr <- h.readExtension(in)
		cancel()
	}()
	<-ctx.Done()
	// Withdraw the announcement before the socket, so no coordinator reads
	// it and finds nothing to connect to.
	os.Remove(hostPath)
	ln.Close()
	<-accepted
	h.ext.close() // coordinators' messages have nowhere to go now
	h.closeClients()
	h.cwg.Wait()
	select {
	case err := <-readErr:
		return err
	default:
		if err := ctx.Err(); !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
}

func versionOf(e *nativemsg.Extension) string {
	if e == nil {
		return ""
	}
	return e.Version
}

type host struct {
	log          *slog.Logger
	info         nativemsg.Hello // what coordinators are told
	ext          *fairOut        // the one writer to the extension
	helloTimeout time.Duration
	stall        time.Duration

	mu      sync.Mutex
	clients map[string]*client // coordinators past hello, by client id
	conns   map[net.Conn]bool  // every open connection, for closing
	nextID  int
	closed  bool
	// nextChunk numbers the large messages the relay cuts in chunks.
	nextChunk int64
	cwg       sync.WaitGroup // one per connection's reader
}

// readHello waits for the extension's first message: a hello, small (a
// larger frame is refused on its length, unread).
func (h *host) readHello(in io.Reader, timeout time.Duration) (nativemsg.Hello, error) {
	var hello nativemsg.Hello
	type read struct {
		msg []byte
		err error
	}
	ch := make(chan read, 1)
	// Ends with the read. After a timeout the process exits, so it is not
	// waited for.
	go func() {
		m, err := nativemsg.ReadFrame(in, binary.NativeEndian, nativemsg.MaxHello)
		ch <- read{m, err}
	}()
	var r read
	select {
	case r = <-ch:
	case <-time.After(timeout):
		return hello, fmt.Errorf("the browser extension sent no hello within %s", timeout)
	}
	if r.err != nil {
		if errors.Is(r.err, nativemsg.ErrTooLarge) {
			h.fatal(nativemsg.CodeInvalid, "the first message must be a hello with the protocol version (a few hundred bytes): "+r.err.Error())
		}
		return hello, fmt.Errorf("read the extension's hello: %w", r.err)
	}
	if err := json.Unmarshal(r.msg, &hello); err != nil || hello.Type != "hello" {
		h.fatal(nativemsg.CodeInvalid, "the first message must be a hello with the protocol version")
		return hello, fmt.Errorf("the extension's first message is not a hello: %.200s", r.msg)
	}
	if hello.Protocol != nativemsg.Protocol {
		msg := nativemsg.MismatchMessage(hello.Protocol, nativemsg.Protocol)
		h.fatal(nativemsg.CodeProtocol, msg)
		return hello, errors.New(msg)
	}
	return hello, nil
}

// fatal tells the extension why the host ends.
func (h *host) fatal(code, message string) {
	b, _ := json.Marshal(nativemsg.Fatal{Type: "error", Code: code, Message: message})
	_ = h.ext.control(b)
}

func (h *host) accept(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				h.log.Warn("accept a coordinator", "err", err)
			}
			return
		}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			conn.Close()
			return
		}
		h.conns[conn] = true
		h.cwg.Add(1)
		h.mu.Unlock()
		go func() {
			defer h.cwg.Done()
			h.serveClient(conn)
			h.mu.Lock()
			delete(h.conns, conn)
			h.mu.Unlock()
		}()
	}
}

// coordinatorHello reads a coordinator's first message within the hello
// timeout: small, or refused on its length.
func (h *host) coordinatorHello(conn net.Conn) (nativemsg.Hello, []byte, error) {
	var hello nativemsg.Hello
	_ = conn.SetReadDeadline(time.Now().Add(h.helloTimeout))
	defer conn.SetReadDeadline(time.Time{})
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		return hello, nil, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > nativemsg.MaxHello {
		return hello, nil, fmt.Errorf("%w: a first message of %d bytes (a hello is at most %d)", nativemsg.ErrTooLarge, n, nativemsg.MaxHello)
	}
	first := make([]byte, n)
	if _, err := io.ReadFull(conn, first); err != nil {
		return hello, nil, err
	}
	err := json.Unmarshal(first, &hello)
	return hello, first, err
}

// serveClient runs one coordinator's connection.
func (h *host) serveClient(conn net.Conn) {
	c := newClient(conn)
	defer c.finish()
	hello, first, err := h.coordinatorHello(conn)
	if err != nil && first == nil {
		h.log.Debug("a coordinator left before its hello", "err", err)
		if errors.Is(err, nativemsg.ErrTooLarge) {
			c.fatal(nativemsg.CodeInvalid, err.Error())
		}
		return
	}
	if err != nil || hello.Type != "hello" || hello.Coordinator == nil {
		h.log.Warn("a connection that is not a coordinator's hello", "message", truncate(first))
		c.fatal(nativemsg.CodeInvalid, "the first message must be a hello with the protocol version and the coordinator")
		return
	}
	if hello.Protocol != nativemsg.Protocol {
		msg := fmt.Sprintf("browser-coordinator protocol %d cannot use this browser's native host (protocol %d): run the coordinator and the host from the same release",
			hello.Protocol, nativemsg.Protocol)
		h.log.Warn("a coordinator of another protocol", "protocol", hello.Protocol, "folder", hello.Coordinator.Folder)
		c.fatal(nativemsg.CodeProtocol, msg)
		return
	}

	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.nextID++
	c.id = "c" + strconv.Itoa(h.nextID)
	h.clients[c.id] = c
	h.mu.Unlock()
	log := h.log.With("client", c.id, "folder", hello.Coordinator.Folder, "coordinatorPid", hello.Coordinator.PID)
	log.Info("a coordinator connected", "channel", hello.Channel != nil)

	reply, _ := json.Marshal(h.info)
	c.send(reply)
	joined, _ := json.Marshal(struct {
		Type        string                 `json:"type"`
		Client      string                 `json:"client"`
		Coordinator *nativemsg.Coordinator `json:"coordinator"`
		Channel     *nativemsg.Channel     `json:"channel,omitempty"`
	}{"clientConnected", c.id, hello.Coordinator, hello.Channel})
	lane := h.ext.lane()
	_ = h.ext.control(joined)

	h.relay(c, lane, log)

	h.drop(c)
	// After its last messages, never before them.
	left, _ := json.Marshal(map[string]string{"type": "clientDisconnected", "client": c.id})
	lane.leave(left)
	log.Info("a coordinator disconnected")
}

func (h *host) drop(c *client) {
	h.mu.Lock()
	delete(h.clients, c.id)
	h.mu.Unlock()
}

func (h *host) closeClients() {
	h.mu.Lock()
	h.closed = true
	for conn := range h.conns {
		conn.Close()
	}
	h.mu.Unlock()
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
