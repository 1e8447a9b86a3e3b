// Package remedy lets a low layer say what the user can do about an error
// without saying how: the flag, the tool or the setting that does it belongs
// to the surface the user sees, and the surface phrases it. The words live at
// the edges — `cli` (flags), `mcpserver` (tool names, one table per tool
// surface), the control API's clients — and the low layers (`browsers`,
// `cdpproxy`, `vscodetier`, `launcher`, `coordinator`, …) return an error
// that carries a Kind.
//
// So a message reads the same way on every surface — what went wrong, then
// what to do — and never names `--browser-path` to an agent that can only
// call tools, or `coordinator_open_tab` under the progressive surface,
// where the tool is `open_tab`.
package remedy

import (
	"errors"
	"slices"
	"strings"
)

// Kind is one thing the user can do about an error. Its value is a stable
// word: the control API sends it to its clients, which phrase it themselves.
type Kind string

const (
	// BrowserPath: use a browser that detection did not find by starting
	// the coordinator with its executable (serve's --browser-path).
	BrowserPath Kind = "browser-path"
	// Executable: the executable named is not one; name the browser's
	// executable file. Arg: an example path on this OS.
	Executable Kind = "executable"
	// PickDetected: choose one of the browsers detection found.
	PickDetected Kind = "pick-detected"
	// UserDataDir: the profile is in use; use another profile folder.
	UserDataDir Kind = "user-data-dir"
	// ProxyPort: the proxy's port is taken; choose another or let the
	// coordinator pick a free one.
	ProxyPort Kind = "proxy-port"
	// ProxyAuthOff: a hand-written client setup can have the proxy serve
	// without its secret.
	ProxyAuthOff Kind = "proxy-auth-off"
	// StateDir: the state folder is not usable; name a folder of the user's own.
	StateDir Kind = "state-dir"
	// OwnBrowser: leave VS Code's browser view and have the coordinator
	// launch a browser of its own (serve's --no-vscode).
	OwnBrowser Kind = "own-browser"
	// OpenTab: open a page in a tab (Tier 2: one that becomes the view).
	OpenTab Kind = "open-tab"
	// Reconnect: a browser the coordinator did not start cannot be
	// switched; restarting reconnects to it.
	Reconnect Kind = "reconnect"
	// SwitchBrowser: leave the user's own browser by launching a browser
	// type of the coordinator's own.
	SwitchBrowser Kind = "switch-browser"
	// EverydayProfile: name the everyday browser's profile folder when it
	// is not the default one.
	EverydayProfile Kind = "everyday-profile"
	// RegisterHost: register the native host for the user's browser.
	RegisterHost Kind = "register-host"
	// ExtensionID: allow another extension's id when registering the host.
	ExtensionID Kind = "extension-id"
	// WaitLonger: wait longer for a coordinator to start.
	WaitLonger Kind = "wait-longer"
	// AbsoluteSidecar: name the sidecar binary by its absolute path.
	AbsoluteSidecar Kind = "absolute-sidecar"
	// FlagsBeforeChild: the coordinator's flags go before the child MCP's
	// command, not after it.
	FlagsBeforeChild Kind = "flags-before-child"
	// ChildCommand: give the child MCP a command that can be found (Node.js
	// for npx, an absolute command, or no child).
	ChildCommand Kind = "child-command"
	// UserScope: the host has only a user-level configuration.
	UserScope Kind = "user-scope"
	// ServiceTimeout: give a remote browser service's starts longer (a wait
	// in its queue included).
	ServiceTimeout Kind = "service-timeout"
)

// Kinds are every Kind, for surfaces to check that they phrase them all.
func Kinds() []Kind {
	return []Kind{BrowserPath, Executable, PickDetected, UserDataDir, ProxyPort, ProxyAuthOff, StateDir, OwnBrowser, OpenTab,
		Reconnect, SwitchBrowser, EverydayProfile, RegisterHost, ExtensionID, WaitLonger, AbsoluteSidecar,
		FlagsBeforeChild, ChildCommand, UserScope, ServiceTimeout}
}

// Remedy is one remedy an error carries.
type Remedy struct {
	Kind Kind `json:"kind"`
	// Arg is a value the remedy names (an example path), or "".
	Arg string `json:"arg,omitempty"`
}

// Error is an error with remedies. Its text is Err's: what went wrong, in
// no surface's words.
type Error struct {
	Err      error
	Remedies []Remedy
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// With returns err carrying the remedies kinds (after any it carries
// already); nil stays nil.
func With(err error, kinds ...Kind) error {
	if err == nil {
		return nil
	}
	rs := make([]Remedy, len(kinds))
	for i, k := range kinds {
		rs[i] = Remedy{Kind: k}
	}
	return &Error{Err: err, Remedies: rs}
}

// WithArg returns err carrying the remedy k, which names arg.
func WithArg(err error, k Kind, arg string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Remedies: []Remedy{{Kind: k, Arg: arg}}}
}

// Of lists the remedies err carries anywhere on its chain, the innermost
// first (the one closest to the cause), each kind once.
func Of(err error) []Remedy {
	var out []Remedy
	var walk func(error)
	walk = func(e error) {
		if _, done := e.(*phrased); done {
			return // said already, in its surface's words
		}
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, c := range x.Unwrap() {
				walk(c)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
		if r, ok := e.(*Error); ok {
			for _, rem := range r.Remedies {
				if !slices.ContainsFunc(out, func(o Remedy) bool { return o.Kind == rem.Kind }) {
					out = append(out, rem)
				}
			}
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// Has reports whether err carries the remedy k.
func Has(err error, k Kind) bool {
	return slices.ContainsFunc(Of(err), func(r Remedy) bool { return r.Kind == k })
}

// Words are a surface's phrasing: a clause per kind, in which "{arg}"
// stands for the remedy's Arg. A kind without words is left unsaid.
type Words map[Kind]string

// Phrase is text followed by each remedy in w's words: "text; clause; clause".
func (w Words) Phrase(text string, rs []Remedy) string {
	var b strings.Builder
	b.WriteString(text)
	for _, r := range rs {
		clause := w[r.Kind]
		if clause == "" {
			continue
		}
		b.WriteString("; ")
		b.WriteString(strings.ReplaceAll(clause, "{arg}", r.Arg))
	}
	return b.String()
}

// Error is err's text followed by its remedies in w's words; "" for nil.
func (w Words) Error(err error) string {
	if err == nil {
		return ""
	}
	return w.Phrase(err.Error(), Of(err))
}

// Phrased is err as w says it: its text carries its remedies in w's words,
// and a surface that phrases it again adds nothing. errors.Is and errors.As
// still see through it. For errors that leave through a surface of their
// own (the CDP proxy's answers) before an edge could phrase them.
func (w Words) Phrased(err error) error {
	if err == nil || len(Of(err)) == 0 {
		return err
	}
	return &phrased{err: err, text: w.Error(err)}
}

type phrased struct {
	err  error
	text string
}

func (p *phrased) Error() string { return p.text }
func (p *phrased) Unwrap() error { return p.err }

// Over is w with base's words added where w has none: a surface that
// differs from another in a few words only.
func (w Words) Over(base Words) Words {
	out := make(Words, len(w)+len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range w {
		out[k] = v
	}
	return out
}

// String names the remedy in no surface's words: "[kind]" or "[kind arg]".
func (r Remedy) String() string {
	if r.Arg == "" {
		return "[" + string(r.Kind) + "]"
	}
	return "[" + string(r.Kind) + " " + r.Arg + "]"
}

// Describe is err's text followed by its remedies' names, for logs and
// tests: "no browser found: …; [browser-path]"; "" for nil.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, r := range Of(err) {
		b.WriteString("; ")
		b.WriteString(r.String())
	}
	return b.String()
}

// Sentinel is errors.New for a low layer's sentinel that carries remedies:
// errors.Is still matches the returned error itself.
func Sentinel(text string, kinds ...Kind) error {
	return With(errors.New(text), kinds...)
}
