package childmcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/proc"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
)

func TestADeadChildIsStartedAgainByTheNextCall(t *testing.T) {
	w, child, _ := proxied(t, "normal", Config{})
	w.request("tools/list", `{}`)
	first, _ := strconv.Atoi(resultText(t, callTool(w, "pid", `{}`)))

	// Killed between calls (its whole group, as a crash or the OOM killer would).
	if err := syscall.Kill(-first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Gone before the call is written (noticed or not): the call goes to a
	// new child. (One killed while the call is written is a child that died
	// during the call, below.)
	testutil.WaitExit(t, first, testutil.Guard)
	second, _ := strconv.Atoi(resultText(t, callTool(w, "pid", `{}`)))
	if second == first || second == 0 {
		t.Fatalf("pid %d after %d", second, first)
	}
	st := child.Status()
	if st.State != Running || st.Restarts != 1 || st.PID != second || !strings.Contains(st.LastError, "killed") {
		t.Errorf("status after a restart: %+v", st)
	}

	// Dying during a call: the call is not sent again (it may have acted,
	// and would crash the next child too); the agent gets an error result
	// that says so, and the next call starts the child again.
	resp := callTool(w, "crash", `{}`)
	if msg := string(field(t, resp, "result")); !strings.Contains(msg, `"isError":true`) || !strings.Contains(msg, "may or may not have acted") {
		t.Errorf("crash: %s", resp)
	}
	if st := child.Status(); st.State != Exited || st.Restarts != 1 {
		t.Errorf("after a crash during a call: %+v (a repeated call would have started it again)", st)
	}
	third, _ := strconv.Atoi(resultText(t, callTool(w, "pid", `{}`)))
	if third == second || proc.Alive(first) || proc.Alive(second) {
		t.Errorf("pids %d %d %d", first, second, third)
	}
	if st := child.Status(); st.State != Running || st.Restarts != 2 {
		t.Errorf("restarts: %+v", st)
	}
}

func TestACallTheDeadChildNeverReadGoesToTheNextOne(t *testing.T) {
	w, child, _ := proxied(t, "normal", Config{})
	w.request("logging/setLevel", `{"level":"debug"}`)
	first, _ := strconv.Atoi(resultText(t, callTool(w, "pid", `{}`)))

	// The child stops reading and dies: the call it had is answered with an
	// error, the one still unread in its stdin goes to a new child.
	w.send(`{"jsonrpc":"2.0","id":"stall","method":"tools/call","params":{"name":"stall","arguments":{}}}`)
	w.awaitMark("stalled")
	w.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"pid","arguments":{}}}`)
	answer := func(id string) json.RawMessage {
		return w.await(func(m map[string]json.RawMessage) bool { return string(m["id"]) == id })
	}
	if msg := string(field(t, answer(`"stall"`), "result")); !strings.Contains(msg, `"isError":true`) || !strings.Contains(msg, "may or may not have acted") {
		t.Errorf("the call the child had: %s", msg)
	}
	second, _ := strconv.Atoi(resultText(t, answer(`"after"`)))
	if second == 0 || second == first {
		t.Errorf("the unread call ran in pid %d (the dead child was %d)", second, first)
	}
	if st := child.Status(); st.State != Running || st.Restarts != 1 {
		t.Errorf("status: %+v", st)
	}
}

func TestCloseEndsTheWholeGroup(t *testing.T) {
	w, child, _ := proxied(t, "normal", Config{StopTimeout: 200 * time.Millisecond})
	w.request("tools/list", `{}`)
	leader := child.Status().PID
	grandchild, err := strconv.Atoi(resultText(t, callTool(w, "grandchild", `{}`)))
	if err != nil || !proc.Alive(grandchild) {
		t.Fatalf("grandchild %d: %v", grandchild, err)
	}
	child.Close()
	if proc.Alive(leader) {
		t.Fatal("the child survived Close")
	}
	// The group was killed; the kernel finishes the grandchild off at once.
	testutil.WaitExit(t, grandchild, testutil.Guard)
	// Calls after Close fail cleanly.
	if _, err := child.Call(context.Background(), "tools/call", map[string]any{"name": "pid"}); err != ErrClosed {
		t.Errorf("call after close: %v", err)
	}
}
