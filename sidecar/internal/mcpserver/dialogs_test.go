package mcpserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// dialogSite serves a page that opens an alert as it loads, and one whose
// button asks with confirm before it posts; it keeps what reached it.
type dialogSite struct {
	URL     string
	mu      sync.Mutex
	deletes int
}

func serveDialogs(t *testing.T) *dialogSite {
	t.Helper()
	d := &dialogSite{}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/welcome.html", func(w http.ResponseWriter, _ *http.Request) {
		html(w, `<!doctype html><title>Welcome</title><script>alert('Cookies are used here.')</script>
<main><form><label>Search <input name="q"></label><button>Search</button></form></main>`)
	})
	mux.HandleFunc("/account.html", func(w http.ResponseWriter, _ *http.Request) {
		html(w, `<!doctype html><title>Account</title><main><h1>Your account</h1><p id="state">kept</p>
<button type="button" id="del">Delete account</button></main><script>
document.getElementById('del').onclick = async () => {
  if (!confirm('Delete your account?')) return;
  await fetch('/delete', { method: 'POST' });
  document.getElementById('state').textContent = 'deleted';
};</script>`)
	})
	mux.HandleFunc("/delete", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			d.mu.Lock()
			d.deletes++
			d.mu.Unlock()
		}
	})
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	d.URL = srv.URL
	return d
}

func (d *dialogSite) deleted() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.deletes
}

// A dialog as the page loads: coordinator_open_tab answers with it (the tab
// focused), coordinator_page_tools too; coordinator_handle_dialog answers
// it and the page's tools follow. A dialog a call opens is in the call's
// answer; answered, the call goes on: checked on the server.
func TestDialogsAtAnMCPClient(t *testing.T) {
	site := serveDialogs(t)
	c := headless(t)
	s := build(t, c, Options{})

	s.call("coordinator_list_tabs", nil) // the browser launched
	start := time.Now()
	opened := s.call("coordinator_open_tab", map[string]any{"url": site.URL + "/welcome.html"})
	t.Logf("coordinator_open_tab with an alert as the page loads answered in %s", time.Since(start))
	tab := structured[struct {
		Focused bool `json:"focused"`
		Dialog  *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"dialog"`
	}](t, opened)
	if opened.IsError || !tab.Focused || tab.Dialog == nil || tab.Dialog.Type != "alert" || tab.Dialog.Message != "Cookies are used here." {
		t.Fatalf("coordinator_open_tab: %s", text(opened))
	}
	if !strings.Contains(text(opened), "coordinator_handle_dialog") {
		t.Fatalf("the answer does not say how to answer the dialog: %s", text(opened))
	}
	start = time.Now()
	listed := s.call("coordinator_page_tools", nil)
	t.Logf("coordinator_page_tools with the alert open answered in %s", time.Since(start))
	if !strings.Contains(text(listed), `"Cookies are used here."`) {
		t.Fatalf("coordinator_page_tools with a dialog open: %s", text(listed))
	}
	if r := s.call("coordinator_handle_dialog", map[string]any{"accept": true}); r.IsError || !strings.Contains(text(r), "search") {
		t.Fatalf("coordinator_handle_dialog: %s", text(r))
	}
	if r := s.call("coordinator_handle_dialog", map[string]any{"accept": true}); !r.IsError || !strings.Contains(text(r), "no JavaScript dialog is open") {
		t.Fatalf("coordinator_handle_dialog with none open: %s", text(r))
	}

	s.call("coordinator_open_tab", map[string]any{"url": site.URL + "/account.html"})
	s.call("coordinator_page_tools", nil)
	r := s.call("coordinator_call_page_tool", map[string]any{"name": "delete_account"})
	if !r.IsError || !strings.Contains(text(r), `"Delete your account?"`) || !strings.Contains(text(r), "coordinator_handle_dialog") {
		t.Fatalf("a call that opens a confirm: %s", text(r))
	}
	if n := site.deleted(); n != 0 {
		t.Fatalf("the server got %d delete(s) before the confirm was answered", n)
	}
	r = s.call("coordinator_handle_dialog", map[string]any{"accept": true})
	if r.IsError || !strings.Contains(text(r), "deleted") {
		t.Fatalf("coordinator_handle_dialog: %s", text(r))
	}
	if n := site.deleted(); n != 1 {
		t.Fatalf("the server got %d delete(s), want 1 once the confirm was accepted", n)
	}
	if r := s.call("coordinator_handle_dialog", map[string]any{}); !r.IsError || !strings.Contains(text(r), "accept is required") {
		t.Fatalf("no accept: %s", text(r))
	}
}
