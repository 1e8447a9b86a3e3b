package cdp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/launcher"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil/testbrowser"
	"github.com/gorilla/websocket"
	"github.com/tidwall/gjson"
)

func TestMain(m *testing.M) { os.Exit(testutil.Main(m)) }

// pipeBrowser launches a real headless Chromium on its pipe, as the coordinator does.
func pipeBrowser(t *testing.T) *launcher.Browser { return testbrowser.OnPipe(t) }

// client is a peer as a proxy client sees it: raw messages in, raw out.
type client struct {
	t    *testing.T
	peer *cdp.Peer
	mu   sync.Mutex
	got  []string
	more chan struct{}
}

func open(t *testing.T, conn *cdp.Conn, o cdp.PeerOptions) *client {
	t.Helper()
	c := &client{t: t, more: make(chan struct{}, 1)}
	o.Deliver = func(data []byte) error {
		c.mu.Lock()
		c.got = append(c.got, string(data))
		c.mu.Unlock()
		select {
		case c.more <- struct{}{}:
		default:
		}
		return nil
	}
	p, err := conn.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	c.peer = p
	t.Cleanup(p.Close)
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := c.peer.Send(context.Background(), []byte(msg)); err != nil {
		c.t.Fatal(err)
	}
}

// await returns the first message that match accepts (a failure after
// testutil.Guard: a 50 MB answer takes a while on a busy machine).
func (c *client) await(what string, match func(string) bool) string {
	c.t.Helper()
	deadline := time.After(testutil.Guard)
	seen := 0
	for {
		c.mu.Lock()
		got := c.got
		c.mu.Unlock()
		for _, m := range got[seen:] {
			if match(m) {
				return m
			}
		}
		seen = len(got)
		select {
		case <-c.more:
		case <-deadline:
			c.t.Fatalf("no %s among %d messages:\n%s", what, len(got), strings.Join(got, "\n"))
		}
	}
}

func (c *client) answer(id int) string {
	c.t.Helper()
	return c.await(fmt.Sprintf("answer %d", id), func(m string) bool { return gjson.Get(m, "id").Int() == int64(id) })
}

func (c *client) count(match func(string) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.got {
		if match(m) {
			n++
		}
	}
	return n
}

func method(name string) func(string) bool {
	return func(m string) bool { return gjson.Get(m, "method").String() == name }
}

func TestBrowserPeersAreApartOnOnePipe(t *testing.T) {
	b := pipeBrowser(t)
	a := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})
	o := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})

	// Both use id 1: each gets its own answer, without a session id (a
	// browser-level client knows none).
	a.send(`{"id":1,"method":"Target.setDiscoverTargets","params":{"discover":true}}`)
	o.send(`{"id":1,"method":"Browser.getVersion"}`)
	if ans := a.answer(1); gjson.Get(ans, "sessionId").Exists() || gjson.Get(ans, "error").Exists() {
		t.Fatalf("a's answer: %s", ans)
	}
	if ans := o.answer(1); !strings.Contains(gjson.Get(ans, "result.product").String(), "Chrome") {
		t.Fatalf("o's answer: %s", ans)
	}
	// Discovery is a's alone.
	a.await("targetCreated", method("Target.targetCreated"))
	a.send(`{"id":2,"method":"Target.createTarget","params":{"url":"about:blank"}}`)
	page := gjson.Get(a.answer(2), "result.targetId").String()
	a.await("the new page", func(m string) bool {
		return gjson.Get(m, "method").String() == "Target.targetCreated" && gjson.Get(m, "params.targetInfo.targetId").String() == page
	})
	if n := o.count(method("Target.targetCreated")); n != 0 {
		t.Fatalf("the other peer got %d discovery events", n)
	}
	// Auto-attach is a's alone, and so are the sessions it makes.
	a.send(`{"id":3,"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":true}}`)
	attached := a.await("attachedToTarget", method("Target.attachedToTarget"))
	session := gjson.Get(attached, "params.sessionId").String()
	a.answer(3)
	a.send(fmt.Sprintf(`{"id":4,"method":"Runtime.evaluate","params":{"expression":"1+1"},"sessionId":%q}`, session))
	if ans := a.answer(4); gjson.Get(ans, "result.result.value").Int() != 2 || gjson.Get(ans, "sessionId").String() != session {
		t.Fatalf("a on its page session: %s", ans)
	}
	// The other peer cannot reach a's session, as if it did not exist.
	o.send(fmt.Sprintf(`{"id":5,"method":"Runtime.evaluate","params":{"expression":"1+1"},"sessionId":%q}`, session))
	if ans := o.answer(5); gjson.Get(ans, "error.code").Int() != cdp.SessionNotFound {
		t.Fatalf("o used a's session: %s", ans)
	}
	if n := o.count(method("Target.attachedToTarget")); n != 0 {
		t.Fatalf("the other peer got %d auto-attach events", n)
	}
}

func TestAPeersEmulationEndsWithIt(t *testing.T) {
	b := pipeBrowser(t)
	a := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})
	a.send(`{"id":1,"method":"Target.getTargets"}`)
	var page string
	for _, ti := range gjson.Get(a.answer(1), "result.targetInfos").Array() {
		if ti.Get("type").String() == "page" {
			page = ti.Get("targetId").String()
		}
	}
	width := func(c *client, id int) int64 {
		c.send(fmt.Sprintf(`{"id":%d,"method":"Runtime.evaluate","params":{"expression":"innerWidth"}}`, id))
		return gjson.Get(c.answer(id), "result.result.value").Int()
	}
	pa := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: page})
	natural := width(pa, 1)
	pa.send(`{"id":2,"method":"Emulation.setDeviceMetricsOverride","params":{"width":321,"height":400,"deviceScaleFactor":1,"mobile":false}}`)
	pa.answer(2)
	if w := width(pa, 3); w != 321 {
		t.Fatalf("a's emulation: innerWidth %d", w)
	}
	pa.peer.Close() // a leaves: its session is detached, and its emulation with it
	pb := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: page})
	id := 0
	testutil.Poll(t, "the emulation of a peer that left ends", func() bool { // the browser says nothing when it drops it
		id++
		return width(pb, id) == natural
	})
}

func TestPagePeerIsTheWholeConnectionToItsClient(t *testing.T) {
	b := pipeBrowser(t)
	p := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: newPage(t, b.Conn)})
	p.send(`{"id":1,"method":"Page.enable"}`)
	p.send(`{"id":2,"method":"Runtime.evaluate","params":{"expression":"document.title = 'paged', document.title"}}`)
	if ans := p.answer(2); gjson.Get(ans, "result.result.value").String() != "paged" || gjson.Get(ans, "sessionId").Exists() {
		t.Fatalf("page client: %s", ans)
	}
	p.send(`{"id":3,"method":"Page.reload"}`)
	ev := p.await("a page event", method("Page.frameNavigated"))
	if gjson.Get(ev, "sessionId").Exists() {
		t.Fatalf("a page client's event names its session: %s", ev)
	}
	// Not a command: an error answer, and the peer goes on.
	p.send(`{"method":"Runtime.evaluate"}`)
	p.await("the error for a message without id", func(m string) bool { return gjson.Get(m, "error.code").Int() == cdp.InvalidRequest })
	p.send(`{"id":4,"method":"Runtime.evaluate","params":{"expression":"40+2"}}`)
	if v := gjson.Get(p.answer(4), "result.result.value").Int(); v != 42 {
		t.Fatalf("after a bad message: %d", v)
	}
}

// newPage opens a blank tab; its target id.
func newPage(t *testing.T, conn *cdp.Conn) string {
	t.Helper()
	res, err := conn.Call(context.Background(), "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(res, "targetId").String()
}

func TestBigAnswersPassWhole(t *testing.T) {
	b := pipeBrowser(t)
	p := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})
	p.send(`{"id":1,"method":"Target.getTargets"}`)
	var page string
	for _, ti := range gjson.Get(p.answer(1), "result.targetInfos").Array() {
		if ti.Get("type").String() == "page" {
			page = ti.Get("targetId").String()
		}
	}
	pp := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: page})
	const n = 24 << 20 // over every threshold on the way (the relay's 1 MiB, the 16 MiB of a /json body), and quick enough for -race on a busy machine
	pp.send(fmt.Sprintf(`{"id":7,"method":"Runtime.evaluate","params":{"expression":"'x'.repeat(%d)","returnByValue":true}}`, n))
	ans := pp.answer(7)
	if v := gjson.Get(ans, "result.result.value").String(); len(v) != n {
		t.Fatalf("a %d MiB answer arrived with %d bytes", n>>20, len(v))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(ans), &m); err != nil || string(m["id"]) != "7" {
		t.Fatalf("the answer is not whole JSON with the client's id: %v", err)
	}
}

func TestAPeerEndsWithItsConnection(t *testing.T) {
	b := pipeBrowser(t)
	p := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})
	if err := b.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.peer.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("the peer outlived its connection")
	}
	if _, err := b.Conn.Open(context.Background(), cdp.PeerOptions{Mode: cdp.Browser}); err == nil {
		t.Fatal("a peer opened on a closed connection")
	}
	if _, err := p.peer.Call(context.Background(), "", "Browser.getVersion", nil); err == nil {
		t.Fatal("a call on an ended peer succeeded")
	}
}

// fakeWS serves one WebSocket with handle, standing in for a browser where
// the test must choose when each message comes.
func fakeWS(t *testing.T, handle func(ws *websocket.Conn)) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		handle(ws)
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func readCmd(ws *websocket.Conn) (id, method string, msg []byte, err error) {
	_, msg, err = ws.ReadMessage()
	return gjson.GetBytes(msg, "id").Raw, gjson.GetBytes(msg, "method").String(), msg, err
}

// A peer's events may follow the answer that gave it its session at once
// (Chromium sends a page's pending events right after the attach): they
// reach the client as the page's own, without the session id it never
// named. (The reader sets the peer's session; under -race, the test fails
// if anyone else does.)
func TestEventsRightAfterTheAttachAreThePeers(t *testing.T) {
	const n = 50
	url := fakeWS(t, func(ws *websocket.Conn) {
		id, _, _, err := readCmd(ws)
		if err != nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"sessionId":"S"}}`))
		for i := range n {
			_ = ws.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"method":"Runtime.consoleAPICalled","params":{"n":%d},"sessionId":"S"}`, i)))
		}
		_, _, _, _ = readCmd(ws) // until the peer detaches
	})
	conn, err := cdp.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := open(t, conn, cdp.PeerOptions{Mode: cdp.Page, Target: "T"})
	c.await(fmt.Sprintf("event %d", n-1), func(m string) bool { return gjson.Get(m, "params.n").Int() == n-1 })
	if got := c.count(func(m string) bool { return gjson.Get(m, "sessionId").Exists() }); got != 0 {
		t.Fatalf("%d of %d events name the page's session to its client: %q", got, n, c.got[:3])
	}
	if s := c.peer.Session(); s != "S" {
		t.Fatalf("the peer's session is %q", s)
	}
}

// An attach whose caller gave up before the answer still gives the browser
// a session: it is detached when the answer comes, as no one will hold it.
// That is Open interrupted, and a client's own attach when the client goes
// first.
func TestAnAttachNoOneWaitsForIsDetached(t *testing.T) {
	detached := make(chan string, 4)
	answerNow := make(chan struct{})
	attachSeen := make(chan struct{}, 1)
	url := fakeWS(t, func(ws *websocket.Conn) {
		// Open's attach: answered once its caller has given up.
		id, _, _, err := readCmd(ws)
		if err != nil {
			return
		}
		<-answerNow
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"sessionId":"GAVE-UP"}}`))
		for {
			id, method, msg, err := readCmd(ws)
			if err != nil {
				return
			}
			switch method {
			case "Target.attachToBrowserTarget":
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"sessionId":"B"}}`))
			case "Target.attachToTarget":
				// A client's attach on its browser session: answered once the
				// client has gone.
				attachSeen <- struct{}{}
				<-answerNow
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"sessionId":"LEFT"},"sessionId":"B"}`))
			case "Target.detachFromTarget":
				detached <- gjson.GetBytes(msg, "params.sessionId").String() + " on " + gjson.GetBytes(msg, "sessionId").String()
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{}}`))
			}
		}
	})
	conn, err := cdp.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-detached:
			if got != want {
				t.Fatalf("detached %q, want %q", got, want)
			}
		case <-time.After(testutil.Guard):
			t.Fatalf("%q was never detached", want)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if _, err := conn.Open(ctx, cdp.PeerOptions{Mode: cdp.Page, Target: "T"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open past its deadline: %v", err)
	}
	cancel()
	answerNow <- struct{}{}
	expect("GAVE-UP on ")

	c := open(t, conn, cdp.PeerOptions{Mode: cdp.Browser})
	c.send(`{"id":1,"method":"Target.attachToTarget","params":{"targetId":"T","flatten":true}}`)
	<-attachSeen // the attach has reached the browser, which holds its answer
	c.peer.Close()
	answerNow <- struct{}{}
	// The peer's own session, as it closes; then the one its attach made.
	expect("B on ")
	expect("LEFT on B")
}

// Peers closing while their connection closes: every detach a closing peer
// sends is one Close waits for (go test -race). A browser that answers
// every attach at once stands in for Chromium, so that many rounds fit.
func TestPeersClosingWithTheirConnection(t *testing.T) {
	url := fakeWS(t, func(ws *websocket.Conn) {
		for n := 0; ; n++ {
			id, method, _, err := readCmd(ws)
			if err != nil {
				return
			}
			result := `{}`
			if method == "Target.attachToBrowserTarget" {
				result = fmt.Sprintf(`{"sessionId":"B%d"}`, n)
			}
			_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":`+result+`}`))
		}
	})
	for range 50 {
		conn, err := cdp.Dial(context.Background(), url, nil)
		if err != nil {
			t.Fatal(err)
		}
		var peers []*cdp.Peer
		for range 10 {
			p, err := conn.Open(context.Background(), cdp.PeerOptions{Mode: cdp.Browser})
			if err != nil {
				t.Fatal(err)
			}
			peers = append(peers, p)
		}
		var wg sync.WaitGroup
		for _, p := range peers {
			wg.Go(p.Close)
		}
		wg.Go(func() { conn.Close() })
		wg.Wait()
		for _, p := range peers {
			<-p.Done()
		}
	}
}

// An answer the peer cannot pass on (here: not JSON its policy can read)
// is answered with an error carrying the client's id: the client does not
// wait forever.
func TestAnUnreadableAnswerIsAnsweredWithAnError(t *testing.T) {
	url := fakeWS(t, func(ws *websocket.Conn) {
		id, _, _, err := readCmd(ws)
		if err != nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"sessionId":"S"}}`))
		if id, _, _, err = readCmd(ws); err != nil {
			return
		}
		_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"id":`+id+`,"result":{"v":"a`+"\x01"+`b"},"sessionId":"S"}`))
		_, _, _, _ = readCmd(ws)
	})
	conn, err := cdp.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := open(t, conn, cdp.PeerOptions{Mode: cdp.Page, Target: "T"})
	m := &cdp.Message{ID: json.RawMessage(`"mine"`), Method: "Runtime.evaluate"}
	if err := c.peer.SendThen(context.Background(), m, func(m *cdp.Message) *cdp.Message { return m }); err != nil {
		t.Fatal(err)
	}
	ans := c.await("the answer", func(m string) bool { return gjson.Get(m, "id").String() == "mine" })
	if !strings.Contains(gjson.Get(ans, "error.message").String(), "could not be passed on") || gjson.Get(ans, "sessionId").Exists() {
		t.Fatalf("the client got %s", ans)
	}
}

// The same against Chromium: an Open whose context ends anywhere between
// its attach and the answer leaves the page with no debugger attached.
func TestAnInterruptedOpenLeavesNoSession(t *testing.T) {
	b := pipeBrowser(t)
	ctx := context.Background()
	res, err := b.Conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	page := gjson.GetBytes(res, "targetId").String()
	attached := func() bool {
		res, err := b.Conn.Call(ctx, "", "Target.getTargetInfo", map[string]any{"targetId": page})
		if err != nil {
			t.Fatal(err)
		}
		return gjson.GetBytes(res, "targetInfo.attached").Bool()
	}
	interrupted := 0
	for _, d := range []time.Duration{50 * time.Microsecond, 200 * time.Microsecond, 500 * time.Microsecond, time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond} {
		c, cancel := context.WithTimeout(ctx, d)
		p, err := b.Conn.Open(c, cdp.PeerOptions{Mode: cdp.Page, Target: page})
		cancel()
		if err == nil {
			p.Close()
		} else {
			interrupted++
		}
		// The detach is on its way: wait for the browser to have done it.
		testutil.Poll(t, fmt.Sprintf("the page attached by an Open with a %v deadline (%v) is detached", d, err), func() bool { return !attached() })
	}
	if interrupted == 0 {
		t.Log("no Open was interrupted on this machine: the fake browser's test covers the case")
	}
}

// The browser ends a page peer's session (its tab closed): the peer ends,
// as the browser closes a page's own WebSocket, and says why.
func TestAPagePeerEndsWithItsTarget(t *testing.T) {
	b := pipeBrowser(t)
	ctx := context.Background()
	res, err := b.Conn.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	page := gjson.GetBytes(res, "targetId").String()
	p := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Page, Target: page})
	other := open(t, b.Conn, cdp.PeerOptions{Mode: cdp.Browser})
	if _, err := b.Conn.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": page}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.peer.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("the page peer outlived its tab")
	}
	if !errors.Is(p.peer.Err(), cdp.ErrDetached) {
		t.Fatalf("the page peer ended with %v", p.peer.Err())
	}
	select {
	case <-other.peer.Done():
		t.Fatal("a browser peer ended with another peer's tab")
	default:
	}
	if _, err := other.peer.Call(ctx, "", "Browser.getVersion", nil); err != nil {
		t.Fatal(err)
	}
}
