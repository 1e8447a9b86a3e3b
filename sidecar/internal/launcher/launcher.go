// Package launcher starts and stops one Chromium-family browser with its CDP
// port enabled, and makes sure it never outlives the coordinator.
//
// The browser always gets --remote-debugging-port=0 (a fixed port that is
// taken makes Chromium silently bind [::1] instead) and its own
// --user-data-dir; the real port is learnt from the "DevTools listening on"
// line on stderr or the DevToolsActivePort file, whichever comes first, and
// the browser counts as ready once /json/version answers.
//
// The browser runs in its own process group and dies with the coordinator:
// Pdeathsig on Linux, a kill-on-close Job object on Windows, a watchdog
// process on macOS (package procgroup). Stop is graceful (CDP Browser.close), then
// kills the group after a timeout, always reaps the process, and removes a
// temporary profile.
package launcher

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/procgroup"
	"github.com/fsnotify/fsnotify"
)

// Options describe one launch. The zero value of every field but Path is a
// sensible default.
type Options struct {
	Path        string   // browser executable (required)
	Headless    bool     // run without a window
	UserDataDir string   // persistent profile; "" means a fresh temporary profile
	ProfileRoot string   // parent folder of temporary profiles; "" means os.TempDir()
	URL         string   // first page; "" means about:blank
	Args        []string // extra command-line flags, appended after ours
	// LaunchTimeout bounds spawn → /json/version answered; 0 means 30 s.
	LaunchTimeout time.Duration
	// StopTimeout bounds the graceful close before the group is killed; 0 means 5 s.
	StopTimeout time.Duration
	Logger      *slog.Logger // nil means slog.Default()
}

// ProfilePrefix starts the name of every temporary profile folder; the owner's
// pid follows it so SweepProfiles can tell whose profile a folder is.
const ProfilePrefix = "bcp-"

// ActivePortFile is the file Chromium writes into its user data dir with the
// port on line 1 and the browser WebSocket path on line 2.
const ActivePortFile = "DevToolsActivePort"

// Browser is a launched, ready browser.
type Browser struct {
	PID         int
	Port        int    // the browser's own CDP port on 127.0.0.1
	WSPath      string // "/devtools/browser/<guid>"
	Product     string // "Chrome/156.0.8078.79", from /json/version
	UserDataDir string
	Argv        []string

	opts       Options
	log        *slog.Logger
	temp       bool // UserDataDir is ours to remove
	cmd        *exec.Cmd
	group      *procgroup.Group
	stderr     *tail
	stderrDone chan struct{} // closed at stderr EOF: every process of the browser has exited
	done       chan struct{}
	waitErr    error

	stopOnce sync.Once
	stopErr  error
}

// Errors callers branch on.
var (
	ErrExited  = errors.New("browser exited before it was ready")
	ErrTimeout = errors.New("browser did not open its CDP port in time")
)

// Launch starts the browser and returns once its CDP endpoint answers. The
// browser is stopped when ctx is cancelled, or by Stop.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	if o.Path == "" {
		return nil, errors.New("launcher: no browser executable given")
	}
	if o.LaunchTimeout <= 0 {
		o.LaunchTimeout = 30 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 5 * time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	b := &Browser{opts: o, log: log, done: make(chan struct{}), stderr: newTail(40), stderrDone: make(chan struct{})}

	if o.UserDataDir != "" {
		if err := os.MkdirAll(o.UserDataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create --user-data-dir %s: %w", o.UserDataDir, err)
		}
		b.UserDataDir = o.UserDataDir
	} else {
		dir, err := newTempProfile(o.ProfileRoot)
		if err != nil {
			return nil, err
		}
		b.UserDataDir, b.temp = dir, true
	}
	// A DevToolsActivePort left by an earlier run outlives its browser and
	// would point us at a dead port.
	_ = os.Remove(filepath.Join(b.UserDataDir, ActivePortFile))

	b.Argv = append([]string{o.Path}, Flags(o, b.UserDataDir)...)
	if err := b.start(ctx); err != nil {
		b.removeProfile()
		return nil, err
	}
	return b, nil
}

func newTempProfile(root string) (string, error) {
	if root == "" {
		root = os.TempDir()
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("create profile folder %s: %w", root, err)
	}
	var r [3]byte // short: the path must leave room for Chromium's socket (maxTempDirLen)
	_, _ = rand.Read(r[:])
	dir := filepath.Join(root, fmt.Sprintf("%s%d-%s", ProfilePrefix, os.Getpid(), hex.EncodeToString(r[:])))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("create temporary profile: %w", err)
	}
	return dir, nil
}

// Flags is the command line (without the executable) for a launch with o
// into userDataDir.
func Flags(o Options, userDataDir string) []string {
	f := []string{
		"--remote-debugging-port=0",
		"--user-data-dir=" + userDataDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-default-apps",
		"--disable-sync",
		"--disable-breakpad",
		"--disable-client-side-phishing-detection",
		"--disable-domain-reliability",
		"--disable-hang-monitor",
		"--disable-popup-blocking",
		"--disable-prompt-on-repost",
		"--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--disable-features=Translate,MediaRouter,OptimizationHints",
		"--metrics-recording-only",
		"--password-store=basic",
		"--use-mock-keychain",
	}
	if o.Headless {
		f = append(f, "--headless", "--hide-scrollbars", "--mute-audio")
	}
	if needsNoSandbox() {
		// Chromium refuses to start as root with its sandbox on.
		f = append(f, "--no-sandbox")
	}
	f = append(f, o.Args...)
	url := o.URL
	if url == "" {
		url = "about:blank"
	}
	return append(f, url)
}

func (b *Browser) start(ctx context.Context) error {
	cmd := exec.Command(b.Argv[0], b.Argv[1:]...)
	// stdout belongs to the MCP stream: the browser never inherits it.
	cmd.Stdin, cmd.Stdout = nil, nil
	if tmp, ok := browserTempDir(b.UserDataDir, b.temp); ok {
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return err
		}
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	}
	// Our own pipe rather than StderrPipe: Wait must not close the read end
	// before the last lines (the reason a browser failed) have been read.
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stderr = stderrW
	b.cmd = cmd

	// The DevToolsActivePort watch is set up before the spawn so its
	// creation cannot be missed.
	portFile := make(chan endpoint, 1)
	stopWatch := watchActivePort(b.UserDataDir, portFile)
	defer stopWatch()

	started := make(chan error, 1)
	go b.run(started)
	err = <-started
	stderrW.Close() // the browser holds its own copy now
	if err != nil {
		stderr.Close()
		return fmt.Errorf("start %s: %w", b.Argv[0], err)
	}
	b.PID = cmd.Process.Pid
	spawned := time.Now()
	b.log.Debug("browser spawned", "pid", b.PID, "argv", strings.Join(b.Argv, " "))

	listening := make(chan endpoint, 1)
	go b.drainStderr(stderr, listening)

	timer := time.NewTimer(b.opts.LaunchTimeout)
	defer timer.Stop()
	var ep endpoint
	select {
	case ep = <-listening:
	case ep = <-portFile:
	case <-b.done:
		return b.failed(fmt.Errorf("%w (%s)", ErrExited, b.exitDescription()))
	case <-timer.C:
		return b.failed(fmt.Errorf("%w (%s)", ErrTimeout, b.opts.LaunchTimeout))
	case <-ctx.Done():
		return b.failed(ctx.Err())
	}
	b.Port, b.WSPath = ep.port, ep.path
	b.log.Debug("browser announced its port", "after", time.Since(spawned))

	product, err := b.waitVersion(ctx, timer.C)
	if err != nil {
		return b.failed(err)
	}
	b.Product = product
	go func() {
		select {
		case <-ctx.Done():
			_ = b.Stop(context.Background())
		case <-b.done:
		}
	}()
	return nil
}

// run starts the process and reaps it, on a goroutine locked to its thread
// for the browser's life (see procgroup.LockThread).
func (b *Browser) run(started chan<- error) {
	procgroup.LockThread()
	g, err := procgroup.Start(b.cmd)
	b.group = g // set before Launch reads it, via the channel send below
	started <- err
	if err != nil {
		return
	}
	b.waitErr = b.cmd.Wait() // always reap: a zombie browser is a leak
	close(b.done)
}

// failed kills a browser that did not become ready and describes why.
func (b *Browser) failed(cause error) error {
	_ = b.Stop(context.Background())
	// Stop has killed the group, so stderr reaches EOF promptly; its last
	// lines usually say why the browser failed.
	select {
	case <-b.stderrDone:
	case <-time.After(time.Second):
	}
	msg := cause.Error()
	if last := b.stderr.String(); last != "" {
		msg += "\nbrowser stderr (last lines):\n" + last
	}
	if strings.Contains(b.stderr.String(), "existing browser session") {
		msg += fmt.Sprintf("\nthe profile %s is in use by another browser: close it or use another --user-data-dir", b.UserDataDir)
	}
	return fmt.Errorf("launch %s: %w", filepath.Base(b.Argv[0]), wrapMsg{msg: msg, err: cause})
}

type wrapMsg struct {
	msg string
	err error
}

func (w wrapMsg) Error() string { return w.msg }
func (w wrapMsg) Unwrap() error { return w.err }

func (b *Browser) exitDescription() string {
	if b.waitErr != nil {
		return b.waitErr.Error()
	}
	return "exit status 0"
}

// maxTempDirLen keeps TMPDIR + "/org.chromium.Chromium.XXXXXX/SingletonSocket"
// (45 bytes; Chrome's, Edge's and Brave's names are shorter) within the 107
// usable bytes of a Unix socket path; longer, Chromium aborts at start.
const maxTempDirLen = 107 - 45

// browserTempDir is where a browser with a temporary profile keeps its temp
// files: inside the profile, so that what Chromium leaves behind when killed
// (shared-memory files, its singleton socket) goes with the profile. When
// that path would be too long for Chromium's socket, TMPDIR is left alone.
func browserTempDir(profile string, temporary bool) (string, bool) {
	dir := filepath.Join(profile, "t")
	return dir, temporary && len(dir) <= maxTempDirLen
}

type endpoint struct {
	port int
	path string
}

// parseListening reads "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/GUID".
func parseListening(line string) (endpoint, bool) {
	const marker = "DevTools listening on "
	i := strings.Index(line, marker)
	if i < 0 {
		return endpoint{}, false
	}
	u := strings.TrimSpace(line[i+len(marker):])
	u = strings.TrimPrefix(u, "ws://")
	slash := strings.IndexByte(u, '/')
	if slash < 0 {
		return endpoint{}, false
	}
	_, portStr, err := net.SplitHostPort(u[:slash])
	if err != nil {
		return endpoint{}, false
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 {
		return endpoint{}, false
	}
	return endpoint{port: port, path: u[slash:]}, true
}

// ParseActivePort reads a DevToolsActivePort file's content: the port on the
// first line, the browser WebSocket path on the second.
func ParseActivePort(data []byte) (port int, path string, err error) {
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 2 {
		return 0, "", fmt.Errorf("DevToolsActivePort: want 2 lines, got %d", len(lines))
	}
	port, err = strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port <= 0 || port > 65535 {
		return 0, "", fmt.Errorf("DevToolsActivePort: bad port %q", lines[0])
	}
	path = strings.TrimSpace(lines[1])
	if !strings.HasPrefix(path, "/devtools/browser/") {
		return 0, "", fmt.Errorf("DevToolsActivePort: bad path %q", path)
	}
	return port, path, nil
}

func (b *Browser) drainStderr(r io.ReadCloser, listening chan<- endpoint) {
	defer close(b.stderrDone)
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	found := false
	for sc.Scan() {
		line := sc.Text()
		b.stderr.add(line)
		b.log.Debug("browser", "stderr", line)
		if !found {
			if ep, ok := parseListening(line); ok {
				found = true
				listening <- ep
			}
		}
	}
}

// watchActivePort reports the endpoint in dir/DevToolsActivePort once the
// file is complete. Chromium writes it in place, so a partial first read is
// retried on the next event.
func watchActivePort(dir string, out chan<- endpoint) (stop func()) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return func() {}
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return func() {}
	}
	go func() {
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Base(ev.Name) != ActivePortFile || !ev.Has(fsnotify.Create|fsnotify.Write) {
					continue
				}
				data, err := os.ReadFile(ev.Name)
				if err != nil {
					continue
				}
				if port, path, err := ParseActivePort(data); err == nil {
					out <- endpoint{port: port, path: path}
					return
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return func() { w.Close() }
}

// waitVersion asks /json/version until it answers. The port is open by the
// time Chromium announces it, so this nearly always succeeds at once.
func (b *Browser) waitVersion(ctx context.Context, deadline <-chan time.Time) (string, error) {
	client := &http.Client{Timeout: 2 * time.Second}
	url := fmt.Sprintf("http://127.0.0.1:%d/json/version", b.Port)
	delay := 5 * time.Millisecond
	for {
		resp, err := client.Get(url)
		if err == nil {
			var v struct {
				Browser string `json:"Browser"`
			}
			err = json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
			if err == nil {
				return v.Browser, nil
			}
		}
		select {
		case <-time.After(delay):
			delay = min(delay*2, 200*time.Millisecond)
		case <-b.done:
			return "", fmt.Errorf("%w (%s)", ErrExited, b.exitDescription())
		case <-deadline:
			return "", fmt.Errorf("%w: /json/version on port %d: %v", ErrTimeout, b.Port, err)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Addr is the browser's own CDP address, "127.0.0.1:PORT".
func (b *Browser) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.Port)) }

// Done is closed once the browser process has exited and been reaped.
func (b *Browser) Done() <-chan struct{} { return b.done }

// ExitErr is the process's exit status once Done is closed.
func (b *Browser) ExitErr() error {
	<-b.done
	return b.waitErr
}

// Temporary reports whether the profile is a temporary one, removed on stop.
func (b *Browser) Temporary() bool { return b.temp }

// Stop closes the browser gracefully (CDP Browser.close), kills its process
// group if it has not exited after StopTimeout (or when ctx ends), waits
// until it is reaped and removes a temporary profile. Safe to call twice.
func (b *Browser) Stop(ctx context.Context) error {
	b.stopOnce.Do(func() { b.stopErr = b.stop(ctx) })
	return b.stopErr
}

func (b *Browser) stop(ctx context.Context) error {
	if b.cmd == nil || b.cmd.Process == nil {
		b.removeProfile()
		return nil
	}
	select {
	case <-b.done:
	default:
		if b.Port == 0 {
			break // not ready: no CDP to close it with, nothing to save
		}
		go b.closeViaCDP() // a frozen browser must not stretch the timeout
		timer := time.NewTimer(b.opts.StopTimeout)
		select {
		case <-b.done:
		case <-timer.C:
			b.log.Warn("browser did not close in time; killing its process group", "pid", b.PID, "timeout", b.opts.StopTimeout)
		case <-ctx.Done():
		}
		timer.Stop()
	}
	// Kill the group even after a clean exit: helpers that lag behind the
	// main process must not keep the profile open.
	b.group.Kill()
	<-b.done
	b.group.Release()
	b.removeProfile()
	return nil
}

// closeViaCDP sends Browser.close on the browser's own WebSocket. Errors do
// not matter: the kill that follows is the fallback.
func (b *Browser) closeViaCDP() {
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.StopTimeout)
	defer cancel()
	c, err := cdp.Dial(ctx, "ws://"+b.Addr()+b.WSPath, nil)
	if err != nil {
		return
	}
	defer c.Close()
	_, _ = c.Call(ctx, "", "Browser.close", nil)
}

func (b *Browser) removeProfile() {
	if !b.temp || b.UserDataDir == "" {
		return
	}
	if err := removeProfileDir(b.UserDataDir); err != nil {
		b.log.Warn("could not remove temporary profile", "dir", b.UserDataDir, "err", err)
	}
}

// removeProfileDir removes a profile whose browser has exited. A helper
// that was killed a moment ago may still be unlinking its files; RemoveAll
// then sees "directory not empty". Try a few times.
func removeProfileDir(dir string) error {
	var err error
	for i := 0; i < 5; i++ {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(time.Duration(i+1) * 20 * time.Millisecond)
	}
	return err
}

// SweepProfiles removes temporary profiles in root whose owning process is
// dead (a coordinator that crashed or was killed). It returns how many.
func SweepProfiles(root string, alive func(pid int) bool) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ok := profileOwner(e.Name())
		if !e.IsDir() || !ok || alive(pid) {
			continue
		}
		// A coordinator restarted at once (a window reload) sweeps while
		// the old browser's helpers are still on their way out.
		if removeProfileDir(filepath.Join(root, e.Name())) == nil {
			n++
		}
	}
	return n
}

// profileOwner parses "bcp-<pid>-<rand>".
func profileOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, ProfilePrefix)
	if !ok {
		return 0, false
	}
	pidStr, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(pidStr)
	return pid, err == nil && pid > 0
}

// tail keeps the last n lines written to it.
type tail struct {
	mu    sync.Mutex
	lines []string
	n     int
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) add(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == t.n {
		t.lines = append(t.lines[:0], t.lines[1:]...)
	}
	t.lines = append(t.lines, line)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
