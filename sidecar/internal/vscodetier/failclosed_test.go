package vscodetier

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/state"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

// The allowlist fails closed: a command the relay cannot read strictly is
// refused, never forwarded for VS Code to read its own way. Each attempt
// here once reached VS Code's window past the allowlist: Chromium takes a
// raw control character inside a string that Go's decoder refuses (so the
// raw bytes went on), and reads the last of two equal keys where the
// policy read the first. Together they attached to the workbench and ran
// script in it. What ran is read in the window itself, through the
// test's own connection to the stand-in.
func TestAnUnreadableCommandNeverReachesVSCode(t *testing.T) {
	vscode := vscodeWindow(t, workbench(t))
	waitForIframe(t, vscode)
	f := startFixture(t)
	writeAtomic(t, f.portFile, strconv.Itoa(vscode.Port))
	f.waitBackend(t, state.BackendTier2)

	direct := dial(t, "ws://"+vscode.Addr()+vscode.WSPath)
	var window, view string
	for _, ti := range gjson.GetBytes(direct.must("", "Target.getTargets", nil), "targetInfos").Array() {
		switch url := ti.Get("url").String(); {
		case ti.Get("type").String() == "page" && strings.HasSuffix(url, "/window"):
			window = ti.Get("targetId").String()
		case ti.Get("type").String() == "iframe" && strings.Contains(url, "/content"):
			view = ti.Get("targetId").String()
		}
	}
	if window == "" || view == "" {
		t.Fatal("the stand-in has no workbench window or view")
	}

	ws, _, err := websocket.DefaultDialer.Dial(f.c.Proxy().WSEndpoint(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ask := func(id int, text string) gjson.Result {
		t.Helper()
		if err := ws.WriteMessage(websocket.TextMessage, []byte(text)); err != nil {
			t.Fatal(err)
		}
		_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second)) // a failure guard only
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("no answer to %d: %v", id, err)
			}
			if a := gjson.ParseBytes(data); a.Get("id").Int() == int64(id) {
				return a
			}
		}
	}
	refused := func(a gjson.Result) bool {
		msg := a.Get("error.message").String()
		return strings.Contains(msg, "nothing of it was sent to the browser") && strings.Contains(msg, "Send each command as one JSON object")
	}

	var sessions []string // what the attempts attached to, had they passed
	for id, text := range map[int]string{
		1: fmt.Sprintf("{\"id\":1,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":%q,\"flatten\":true,\"note\":\"a\nb\"}}", window),
		2: fmt.Sprintf(`{"id":2,"method":"Target.attachToTarget","params":{"targetId":%q,"flatten":true,"targetId":%q}}`, view, window),
		3: fmt.Sprintf("{\"id\":3,\"method\":\"Target.attachToTarget\",\"params\":{\"targetId\":%q,\"flatten\":true}}\x00", window),
	} {
		a := ask(id, text)
		if s := a.Get("result.sessionId").String(); s != "" {
			sessions = append(sessions, s)
		}
		if !refused(a) {
			t.Errorf("attempt %d was answered %s", id, a.Raw)
		}
	}
	for i, s := range append(sessions, "GUESSED") {
		id := 10 + i
		a := ask(id, fmt.Sprintf("{\"id\":%d,\"sessionId\":%q,\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":\"window.smuggled = %d // \x01\"}}", id, s, id))
		if !refused(a) {
			t.Errorf("a script for the workbench was answered %s", a.Raw)
		}
	}

	attached := direct.must("", "Target.attachToTarget", map[string]any{"targetId": window, "flatten": true})
	got := direct.must(gjson.GetBytes(attached, "sessionId").String(), "Runtime.evaluate", map[string]any{"expression": "String(window.smuggled)", "returnByValue": true})
	if v := gjson.GetBytes(got, "result.value").String(); v != "undefined" {
		t.Errorf("a refused command ran in VS Code's window: window.smuggled = %s", v)
	}
	if a := ask(20, `{"id":20,"method":"Browser.getVersion"}`); !a.Get("result.protocolVersion").Exists() {
		t.Errorf("after the refusals, the relay no longer answers: %s", a.Raw)
	}
}
