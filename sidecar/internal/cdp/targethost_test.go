package cdp_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/tidwall/gjson"
)

// A TargetHost shows a client one target of a real browser as the only
// page of a virtual browser (as Tier 2 shows VS Code's browser view): the
// other pages are never named, the client's session works in the shown
// page, and when its owner shows another target, or the browser closes the
// shown one, the client hears its page go (and, auto-attached, the new one
// come).
func TestTargetHostShowsOnlyTheTargetsItIsGiven(t *testing.T) {
	b := pipeBrowser(t)
	ctx := testutil.Context(t)
	page := func(title string) cdp.Target {
		res, err := b.Conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": "data:text/html,<title>" + title + "</title>"})
		if err != nil {
			t.Fatal(err)
		}
		return cdp.Target{ID: gjson.GetBytes(res, "targetId").String(), Type: "page", Title: title}
	}
	one, two := page("one"), page("two")
	testutil.Poll(t, "both pages to load", func() bool {
		res, err := b.Conn.Call(ctx, "", "Target.getTargets", nil)
		loaded := 0
		for _, ti := range gjson.GetBytes(res, "targetInfos").Array() {
			if id, title := ti.Get("targetId").String(), ti.Get("title").String(); (id == one.ID && title == "one") || (id == two.ID && title == "two") {
				loaded++
			}
		}
		return err == nil && loaded == 2
	})

	host := cdp.NewTargetHost(cdp.TargetHostOptions{Conn: b.Conn, Version: b.Version})
	v := cdp.NewVirtual(cdp.VirtualOptions{Host: host, Words: cdp.VirtualWords{Browser: "a test browser", Backend: "the test"}})
	conn := cdp.NewConn(v, cdp.Options{})
	t.Cleanup(func() {
		host.Shutdown()
		conn.Close()
	})
	host.Show(one)

	events := make(chan cdp.Message, 64)
	client, err := conn.Open(ctx, cdp.PeerOptions{Mode: cdp.Browser, OnEvent: func(m cdp.Message) { events <- m }})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	call := func(session, method string, params any) json.RawMessage {
		t.Helper()
		res, err := client.Call(ctx, session, method, params)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		return res
	}
	shown := func() []string {
		var ids []string
		for _, ti := range gjson.GetBytes(call("", "Target.getTargets", nil), "targetInfos").Array() {
			ids = append(ids, ti.Get("targetId").String())
		}
		return ids
	}
	event := func(method string) cdp.Message {
		t.Helper()
		for {
			select {
			case m := <-events:
				if m.Method == method {
					return m
				}
			case <-time.After(testutil.Guard):
				t.Fatalf("no %s", method)
			}
		}
	}
	title := func(session string) string {
		return gjson.GetBytes(call(session, "Runtime.evaluate", map[string]any{"expression": "document.title", "returnByValue": true}), "result.value").String()
	}

	if ids := shown(); len(ids) != 1 || ids[0] != one.ID {
		t.Fatalf("the client sees %v; want only %s", ids, one.ID)
	}
	call("", "Target.setAutoAttach", map[string]any{"autoAttach": true, "flatten": true, "waitForDebuggerOnStart": false})
	first := event("Target.attachedToTarget")
	s1 := gjson.GetBytes(first.Params, "sessionId").String()
	if id := gjson.GetBytes(first.Params, "targetInfo.targetId").String(); id != one.ID {
		t.Fatalf("auto-attached to %s", id)
	}
	if got := title(s1); got != "one" {
		t.Fatalf("the shown page's title: %q", got)
	}

	host.Show(two)
	if gone := event("Target.detachedFromTarget"); gjson.GetBytes(gone.Params, "sessionId").String() != s1 {
		t.Fatalf("detached %s; want %s", gone.Params, s1)
	}
	s2 := gjson.GetBytes(event("Target.attachedToTarget").Params, "sessionId").String()
	if got := title(s2); got != "two" {
		t.Fatalf("the page shown next: %q", got)
	}
	if ids := shown(); len(ids) != 1 || ids[0] != two.ID {
		t.Fatalf("the client sees %v; want only %s", ids, two.ID)
	}
	if _, err := client.Call(ctx, s1, "Runtime.evaluate", map[string]any{"expression": "1"}); err == nil {
		t.Fatal("the session on the page no longer shown still works")
	}

	// The browser closes the shown page: its session ends.
	if _, err := b.Conn.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": two.ID}); err != nil {
		t.Fatal(err)
	}
	if gone := event("Target.detachedFromTarget"); gjson.GetBytes(gone.Params, "sessionId").String() != s2 {
		t.Fatalf("detached %s; want %s", gone.Params, s2)
	}
}
