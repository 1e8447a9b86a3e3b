package pagetools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// A page that asks with confirm, prompt and alert, and shows what it was
// answered (read in the page by the tests, never from the tool's answer).
const dialogPage = `<!doctype html><title>Account</title><main><h1>Your account</h1>
<p id="name">Shopping list</p><p id="state">kept</p>
<form id="profile"><label>Display name <input name="display"></label><button>Save profile</button></form>
<p id="saved"></p>
<div><button type="button" id="del">Delete account</button> <button type="button" id="ren">Rename list</button></div>
</main><script>
document.getElementById('del').onclick = () => {
  document.getElementById('state').textContent = confirm('Delete your account?') ? 'deleted' : 'kept on purpose';
};
document.getElementById('ren').onclick = () => {
  const n = prompt('New name for the list?', 'Shopping list');
  if (n) document.getElementById('name').textContent = n;
};
document.getElementById('profile').onsubmit = async (e) => {
  e.preventDefault();
  await new Promise((r) => setTimeout(r, 10));
  alert('Profile saved.');
  document.getElementById('saved').textContent = 'Saved ' + e.target.elements.display.value;
};
</script>`

// dialogOf asserts err is an ErrDialogOpen of that type and answers it.
func dialogOf(t *testing.T, err error, typ string) *Dialog {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) || !errors.Is(err, ErrDialogOpen) || pe.Dialog == nil {
		t.Fatalf("err = %v, want a dialog error", err)
	}
	if pe.Dialog.Type != typ {
		t.Fatalf("dialog type = %q, want %q (%v)", pe.Dialog.Type, typ, err)
	}
	return pe.Dialog
}

// A dialog a call opens is in the call's answer; while it is open every
// call and discovery answers with it; answered, the call goes on and its
// outcome is HandleDialog's answer. Checked in the page.
func TestDialogConfirmDuringCall(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("dialog.html", dialogPage), Config{})
	tb.waitHas("save_profile", "delete_account", "rename_list")

	start := time.Now()
	_, err := tb.eng.Call(testCtx(t), "delete_account", nil)
	d := dialogOf(t, err, "confirm")
	t.Logf("the call answered with the dialog in %s", time.Since(start))
	if d.Message != "Delete your account?" || !strings.Contains(err.Error(), `"Delete your account?"`) {
		t.Fatalf("dialog = %+v, err = %v", d, err)
	}
	// Everything answers at once while it is open.
	start = time.Now()
	_, err = tb.eng.Call(testCtx(t), "rename_list", nil)
	dialogOf(t, err, "confirm")
	_, err = tb.eng.Discover(testCtx(t))
	dialogOf(t, err, "confirm")
	t.Logf("a call and a discovery with the dialog open answered in %s", time.Since(start))

	res, err := tb.eng.HandleDialog(testCtx(t), true, nil)
	if err != nil {
		t.Fatalf("HandleDialog: %v", err)
	}
	if got := tb.eval(`document.getElementById('state').textContent`); got != "deleted" {
		t.Fatalf("the page's state = %v, want deleted (the confirm accepted)", got)
	}
	if res.Tool != "delete_account" || !strings.Contains(res.Text(), "confirm dialog was accepted") || !strings.Contains(res.PageText, "deleted") {
		t.Fatalf("HandleDialog's answer: %s", res.Text())
	}
	if _, ok := tb.eng.Dialog(); ok {
		t.Fatal("a dialog is still reported open")
	}
	if _, err := tb.eng.HandleDialog(testCtx(t), true, nil); !errors.Is(err, ErrNoDialog) {
		t.Fatalf("HandleDialog with none open: %v, want ErrNoDialog", err)
	}
}

// A prompt's answer is the text given, as the page sees it; dismissing a
// confirm is the page's "no".
func TestDialogPromptAndDismiss(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("dialog.html", dialogPage), Config{})
	tb.waitHas("save_profile", "delete_account", "rename_list")

	_, err := tb.eng.Call(testCtx(t), "rename_list", nil)
	if d := dialogOf(t, err, "prompt"); d.DefaultPrompt != "Shopping list" {
		t.Fatalf("default prompt = %q", d.DefaultPrompt)
	}
	text := "Groceries"
	if _, err := tb.eng.HandleDialog(testCtx(t), true, &text); err != nil {
		t.Fatal(err)
	}
	if got := tb.eval(`document.getElementById('name').textContent`); got != "Groceries" {
		t.Fatalf("the list's name in the page = %v, want Groceries", got)
	}

	_, err = tb.eng.Call(testCtx(t), "delete_account", nil)
	dialogOf(t, err, "confirm")
	if _, err := tb.eng.HandleDialog(testCtx(t), false, nil); err != nil {
		t.Fatal(err)
	}
	if got := tb.eval(`document.getElementById('state').textContent`); got != "kept on purpose" {
		t.Fatalf("the page's state = %v, want the confirm dismissed", got)
	}
}

// An alert the page opens after the submit, as the call waits for the
// page to settle: the call answers with it, and goes on once it is closed.
func TestDialogAlertAfterSubmit(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("dialog.html", dialogPage), Config{})
	tb.waitHas("save_profile", "delete_account", "rename_list")

	_, err := tb.eng.Call(testCtx(t), "save_profile", map[string]any{"display_name": "Ada"})
	if d := dialogOf(t, err, "alert"); d.Message != "Profile saved." {
		t.Fatalf("dialog = %+v", d)
	}
	res, err := tb.eng.HandleDialog(testCtx(t), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.eval(`document.getElementById('saved').textContent`); got != "Saved Ada" {
		t.Fatalf("the page shows %v, want Saved Ada", got)
	}
	if !strings.Contains(res.PageText, "Saved Ada") {
		t.Fatalf("the answer does not say what changed: %s", res.Text())
	}
}

// A dialog the page opens as it loads (an engine that follows the tab
// from before the navigation sees it): discovery answers with it at once,
// and once it is answered the page loads and its tools are found.
func TestDialogDuringLoad(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.attach(t, "")
	tb.start(Config{})
	u := s.page("load-alert.html", `<!doctype html><title>Welcome</title><script>alert('Cookies are used here.')</script>
<form><label>Search <input name="q"></label><button>Search</button></form><p id="after">loaded</p>`)
	tb.navigate(u)
	ctx := testCtx(t)
	var err error
	for { // the navigation commits, then the page's script opens the dialog
		if _, err = tb.eng.Discover(ctx); err != nil || ctx.Err() != nil {
			break
		}
	}
	if d := dialogOf(t, err, "alert"); d.Message != "Cookies are used here." {
		t.Fatalf("dialog = %+v", d)
	}
	res, err := tb.eng.HandleDialog(ctx, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.eval(`document.getElementById('after').textContent`); got != "loaded" {
		t.Fatalf("the page did not load on: %v", got)
	}
	if !strings.Contains(strings.Join(res.Tools, ","), "search") {
		t.Fatalf("after the dialog the page's tools are %v: %s", res.Tools, res.Text())
	}
}

// A call the request gives up on while its dialog is open still leaves
// the dialog answerable and the engine usable.
func TestDialogCallerGone(t *testing.T) {
	s := serveSite(t)
	b := startBrowser(t)
	tb := b.newTab(t, s.page("dialog.html", dialogPage), Config{})
	tb.waitHas("save_profile", "delete_account", "rename_list")
	ctx, cancel := context.WithCancel(context.Background())
	_, err := tb.eng.Call(ctx, "delete_account", nil)
	dialogOf(t, err, "confirm")
	cancel()
	if _, err := tb.eng.HandleDialog(testCtx(t), true, nil); err != nil {
		t.Fatal(err)
	}
	if got := tb.eval(`document.getElementById('state').textContent`); got != "deleted" {
		t.Fatalf("state = %v", got)
	}
}

// waitHas waits until the tab's tools include names.
func (tb *tab) waitHas(names ...string) {
	tb.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		have := map[string]bool{}
		for _, n := range Names(tb.eng.Tools()) {
			have[n] = true
		}
		missing := false
		for _, n := range names {
			missing = missing || !have[n]
		}
		if !missing {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("tools = %v, want %v among them", Names(tb.eng.Tools()), names)
		}
		select {
		case <-tb.eng.Changed():
		case <-time.After(100 * time.Millisecond):
		}
	}
}
