// Package launcher starts and stops one Chromium-family browser, and makes
// sure it never outlives the coordinator.
//
// The browser listens on no port: it gets --remote-debugging-pipe, and the
// coordinator holds the only connection to it (cdp.Pipe on two file
// descriptors, 3 and 4 in the browser). Another local user has nothing to
// connect to. It counts as ready once it answers Browser.getVersion there.
// (Windows is the exception: Go cannot hand a child the C runtime's file
// descriptors 3 and 4 that Chromium reads the pipe from, so there the
// browser gets --remote-debugging-port=0 on loopback and the coordinator
// opens one WebSocket to it, found through DevToolsActivePort; see
// connect_windows.go.) It always gets its own --user-data-dir.
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
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/procgroup"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
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
	// LaunchTimeout bounds spawn → Browser.getVersion answered; 0 means
	// DefaultLaunchTimeout.
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
	Conn        *cdp.Conn // the only connection to the browser
	Version     cdp.Version
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
	ErrTimeout = errors.New("browser did not answer on its CDP connection in time")
)

// DefaultLaunchTimeout is a failure guard, not an expectation: a browser
// that never answers is given up on, a slow one is waited for. 30 s was
// missed by Chromium starting on a busy two-core machine (Playwright waits
// 180 s).
const DefaultLaunchTimeout = 90 * time.Second

// Launch starts the browser and returns once its CDP endpoint answers. The
// browser is stopped when ctx is cancelled, or by Stop.
func Launch(ctx context.Context, o Options) (*Browser, error) {
	if o.Path == "" {
		return nil, errors.New("launcher: no browser executable given")
	}
	if o.LaunchTimeout <= 0 {
		o.LaunchTimeout = DefaultLaunchTimeout
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
			return nil, fmt.Errorf("create the profile folder %s: %w", o.UserDataDir, err)
		}
		b.UserDataDir = o.UserDataDir
	} else {
		dir, err := newTempProfile(o.ProfileRoot)
		if err != nil {
			return nil, err
		}
		b.UserDataDir, b.temp = dir, true
	}
	// A DevToolsActivePort left by an earlier run (with a port) outlives its
	// browser; nothing of ours must ever read it as this browser's.
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
		debuggingFlag,
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
		// WebUIOmniboxPopup, WebUIOmniboxAimPopup: Chromium 156 preloads two
		// WebUI omnibox popups (chrome://omnibox-popup.top-chrome) in a
		// renderer of their own for every browser context's window, headless
		// too: a renderer per context no agent asked for (with --isolated,
		// one per agent). Off, a headed window's omnibox uses the views popup.
		"--disable-features=Translate,MediaRouter,OptimizationHints,WebUIOmniboxPopup,WebUIOmniboxAimPopup",
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
	// Chromium's crash handler (chrome_crashpad_handler) daemonizes out of
	// the browser's process group; its database names the folder given here,
	// which is how Stop finds and ends it. (--disable-crashpad-for-testing
	// would keep it from starting, but Chromium 156 then renders no page.)
	cmd.Env = append(os.Environ(), "BREAKPAD_DUMP_LOCATION="+b.crashDir())
	if tmp, ok := browserTempDir(b.UserDataDir, b.temp); ok {
		if err := os.Mkdir(tmp, 0o700); err != nil {
			return err
		}
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	// Our own pipe rather than StderrPipe: Wait must not close the read end
	// before the last lines (the reason a browser failed) have been read.
	stderr, stderrW, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stderr = stderrW
	b.cmd = cmd
	link, err := prepareConnection(cmd, b.UserDataDir)
	if err != nil {
		stderr.Close()
		stderrW.Close()
		return err
	}

	started := make(chan error, 1)
	go b.run(started)
	err = <-started
	stderrW.Close() // the browser holds its own copy now
	link.started()  // likewise for the browser's ends of the connection
	if err != nil {
		stderr.Close()
		link.abandon()
		return fmt.Errorf("start %s: %w", b.Argv[0], err)
	}
	b.PID = cmd.Process.Pid
	spawned := time.Now()
	b.log.Debug("browser spawned", "pid", b.PID, "argv", strings.Join(b.Argv, " "))
	go b.drainStderr(stderr, link.stderrLine)

	timer := time.NewTimer(b.opts.LaunchTimeout)
	defer timer.Stop()
	conn, err := link.connect(ctx, b.done, timer.C, b.log)
	if err != nil {
		return b.failed(b.why(err))
	}
	b.Conn = conn
	version, err := b.version(ctx, timer.C)
	if err != nil {
		return b.failed(b.why(err))
	}
	b.Version = version
	b.log.Debug("browser ready", "after", time.Since(spawned))
	go func() {
		select {
		case <-ctx.Done():
			_ = b.Stop(context.Background())
		case <-b.done:
		}
	}()
	return nil
}

// crashDir is the crash handler's database, inside the profile.
func (b *Browser) crashDir() string { return filepath.Join(b.UserDataDir, "Crash Reports") }

// why turns a failure to connect into what happened to the browser: a
// connection that ends at launch usually means the browser is exiting.
func (b *Browser) why(err error) error {
	if errors.Is(err, ErrTimeout) {
		return err
	}
	select {
	case <-b.done:
		return fmt.Errorf("%w (%s)", ErrExited, b.exitDescription())
	case <-time.After(time.Second):
		return err
	}
}

// version asks the browser what it is: the first answer on the connection
// says it is ready.
func (b *Browser) version(ctx context.Context, deadline <-chan time.Time) (cdp.Version, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timedOut atomic.Bool
	go func() {
		select {
		case <-deadline:
			timedOut.Store(true)
			cancel()
		case <-b.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	v, err := cdp.GetVersion(ctx, b.Conn)
	if err != nil && timedOut.Load() {
		return v, fmt.Errorf("%w (%s)", ErrTimeout, b.opts.LaunchTimeout)
	}
	return v, err
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
	err := fmt.Errorf("launch %s: %w", filepath.Base(b.Argv[0]), wrapMsg{msg: msg, err: cause})
	if strings.Contains(b.stderr.String(), "existing browser session") {
		// The surface says how to choose another profile.
		err = remedy.With(fmt.Errorf("%w\nthe profile %s is in use by another browser: close that browser", err, b.UserDataDir), remedy.UserDataDir)
	}
	return err
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

// maxStderrLine bounds one line kept from the browser's stderr; the rest of
// a longer line is read and dropped (the browser must never block on a
// stderr nobody drains).
const maxStderrLine = 4 << 10

func (b *Browser) drainStderr(r io.ReadCloser, onLine func(string)) {
	defer close(b.stderrDone)
	defer r.Close()
	br := bufio.NewReaderSize(r, maxStderrLine)
	for {
		line, err := br.ReadSlice('\n')
		text := strings.TrimRight(string(line), "\r\n")
		if errors.Is(err, bufio.ErrBufferFull) {
			text += " …[cut]"
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
		}
		if text != "" {
			b.stderr.add(text)
			b.log.Debug("browser", "stderr", text)
			if onLine != nil {
				onLine(text)
			}
		}
		if err != nil {
			return
		}
	}
}

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
		if b.Version.Product == "" {
			break // never ready: nothing to close gracefully, nothing to save
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
	// main process must not keep the profile open. The crash handler left
	// the group: it is found by its database folder.
	b.group.Kill()
	<-b.done
	b.group.Release()
	endStragglers(b.crashDir(), b.log)
	if b.Conn != nil {
		b.Conn.Close()
	}
	b.removeProfile()
	return nil
}

// closeViaCDP sends Browser.close on the browser's connection. Errors do
// not matter: the kill that follows is the fallback.
func (b *Browser) closeViaCDP() {
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.StopTimeout)
	defer cancel()
	_, _ = b.Conn.Call(ctx, "", "Browser.close", nil)
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
