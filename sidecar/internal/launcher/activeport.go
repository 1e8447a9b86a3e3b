package launcher

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// Where a browser started with --remote-debugging-port says its port: the
// "DevTools listening on" line on stderr, or DevToolsActivePort in its
// profile, whichever comes first. Only Windows launches that way (see
// connect_windows.go); the parsing is tested on every OS.

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
