package vscodetier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
)

// openSimpleBrowser opens the Simple Browser at u in a VS Code window, the
// way a user does: the command palette (Ctrl+Shift+P, Cmd+Shift+P on a Mac;
// F1 too in desktop VS Code — in a browser, F1 is the browser's Help), then
// "Simple Browser: Show", Enter, the URL, Enter — as key events on the window
// over CDP. It is the fallback for when no browser view is open and nobody
// else (the extension) opened one; each step checks the palette is where it
// should be.
func (v *View) openSimpleBrowser(ctx context.Context, u string) error {
	window, desktop, err := v.workbenchWindow(ctx)
	if err != nil {
		return err
	}
	session, err := v.attach(ctx, window)
	if err != nil {
		return err
	}
	defer v.detach(session)
	s := palette{conn: v.conn, session: session, desktop: desktop}
	if res, err := s.call(ctx, "Runtime.evaluate", map[string]any{"expression": "navigator.platform", "returnByValue": true}); err == nil {
		s.mac = strings.Contains(string(res), "Mac")
	}
	// A window in the background ignores keys unless it believes it has focus.
	_, _ = s.call(ctx, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true})

	v.log.Info("no browser view is open in VS Code; opening the Simple Browser", "url", u)
	if err := s.open(ctx); err != nil {
		return err
	}
	if err := s.typeText(ctx, "Simple Browser: Show"); err != nil {
		return err
	}
	if err := s.press(ctx, "Enter"); err != nil {
		return err
	}
	// The command asks for the URL in a second quick input.
	if err := s.waitInput(ctx, func(value string) bool { return !strings.HasPrefix(value, ">") }); err != nil {
		return fmt.Errorf("the Simple Browser did not ask for a URL (is the Simple Browser extension enabled?): %w", err)
	}
	if err := s.typeText(ctx, u); err != nil {
		return err
	}
	return s.press(ctx, "Enter")
}

// workbenchWindow is a target known to be a VS Code window; desktop says
// whether it is desktop VS Code (Electron) rather than a web build.
func (v *View) workbenchWindow(ctx context.Context) (id string, desktop bool, err error) {
	deadline := time.NewTimer(3 * time.Second)
	defer deadline.Stop()
	for {
		changed := v.follow.Changed() // a page's probe ends in a change
		windows := v.follow.Targets(func(t cdp.Target) bool {
			if t.Type != "page" {
				return false
			}
			v.mu.Lock()
			defer v.mu.Unlock()
			return isWorkbenchURL(t.URL) || v.workbench[t.ID]
		})
		if len(windows) > 0 {
			return windows[0].ID, isWorkbenchURL(windows[0].URL), nil
		}
		select {
		case <-changed:
		case <-deadline.C:
			return "", false, errors.New("no VS Code window among the targets")
		case <-ctx.Done():
			return "", false, ctx.Err()
		}
	}
}

type palette struct {
	conn    *cdp.Conn
	session string
	desktop bool // desktop VS Code: F1 is safe
	mac     bool // Cmd, not Ctrl
}

func (p palette) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return p.conn.Call(ctx, p.session, method, params)
}

var keys = map[string]struct {
	code string
	vk   int
}{
	"F1":    {"F1", 112},
	"Enter": {"Enter", 13},
	"P":     {"KeyP", 80},
}

// CDP modifier bits.
const (
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

func (p palette) press(ctx context.Context, key string) error { return p.chord(ctx, key, 0) }

func (p palette) chord(ctx context.Context, key string, modifiers int) error {
	k := keys[key]
	event := func(typ string, extra map[string]any) error {
		params := map[string]any{"type": typ, "key": key, "code": k.code, "windowsVirtualKeyCode": k.vk, "nativeVirtualKeyCode": k.vk, "modifiers": modifiers}
		for n, v := range extra {
			params[n] = v
		}
		_, err := p.call(ctx, "Input.dispatchKeyEvent", params)
		return err
	}
	// A key press is key down, then (for Enter) the character, then key up.
	if err := event("rawKeyDown", nil); err != nil {
		return err
	}
	if key == "Enter" {
		if err := event("char", map[string]any{"text": "\r"}); err != nil {
			return err
		}
	}
	return event("keyUp", nil)
}

func (p palette) typeText(ctx context.Context, text string) error {
	_, err := p.call(ctx, "Input.insertText", map[string]any{"text": text})
	return err
}

// inputState reports the focused quick input's value, if one is focused.
const inputState = `(() => { const i = document.querySelector('.quick-input-widget input');
  return i && i.offsetParent !== null && document.activeElement === i ? i.value : null })()`

// waitInput waits until a quick input has focus and its value satisfies ok.
func (p palette) waitInput(ctx context.Context, ok func(value string) bool) error {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		res, err := p.call(ctx, "Runtime.evaluate", map[string]any{"expression": inputState, "returnByValue": true})
		if err != nil {
			return err
		}
		var out struct {
			Result struct {
				Value *string `json:"value"`
			} `json:"result"`
		}
		_ = json.Unmarshal(res, &out)
		if out.Result.Value != nil && ok(*out.Result.Value) {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond): // the UI is animating; nothing to wait on over CDP
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return errors.New("timed out")
}

// open opens the command palette, retrying: right after start-up VS Code's
// walkthrough can take the focus away again.
func (p palette) open(ctx context.Context) error {
	mod := modCtrl | modShift
	if p.mac {
		mod = modMeta | modShift
	}
	for attempt := 0; attempt < 3; attempt++ {
		var err error
		if p.desktop && attempt%2 == 1 {
			err = p.press(ctx, "F1")
		} else {
			err = p.chord(ctx, "P", mod)
		}
		if err != nil {
			return err
		}
		if p.waitInput(ctx, func(value string) bool { return strings.HasPrefix(value, ">") }) == nil {
			return nil
		}
	}
	return errors.New("the command palette did not open")
}
