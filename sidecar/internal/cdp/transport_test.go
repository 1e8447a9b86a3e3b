package cdp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/testutil"
	"github.com/tidwall/gjson"
)

// pipeEnd is the browser's side of a --remote-debugging-pipe, played by the
// test: a real Chromium drains a pipe too fast for a write to be caught in
// the middle, so the moments a write starts and stops are the test's here.
type pipeEnd struct {
	t       *testing.T
	in      *os.File // what the connection writes
	out     *os.File // what the connection reads
	conn    *cdp.Conn
	head    []byte // read by underWay, still to be answered
	mu      sync.Mutex
	invalid []string // messages that were not whole JSON
}

// underWay returns once the connection has started a write: its first
// byte is in the pipe (answer reads it with the rest).
func (e *pipeEnd) underWay() {
	e.t.Helper()
	b := make([]byte, 1)
	if _, err := io.ReadFull(e.in, b); err != nil {
		e.t.Fatalf("no write started: %v", err)
	}
	e.head = append(e.head, b...)
}

func newPipeEnd(t *testing.T) *pipeEnd {
	t.Helper()
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	e := &pipeEnd{t: t, in: toBrowserR, out: fromBrowserW}
	e.conn = cdp.NewConn(cdp.Pipe(fromBrowserR, toBrowserW), cdp.Options{})
	t.Cleanup(func() {
		e.conn.Close()
		e.in.Close()
		e.out.Close()
	})
	return e
}

// answer reads the connection's messages and answers each whole one with
// an empty result; it returns when the pipe closes.
func (e *pipeEnd) answer() {
	r := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(e.head), e.in), 1<<20)
	for {
		msg, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		msg = msg[:len(msg)-1]
		if !json.Valid(msg) {
			e.mu.Lock()
			e.invalid = append(e.invalid, string(msg[:min(len(msg), 80)])+"…")
			e.mu.Unlock()
			continue
		}
		id := gjson.GetBytes(msg, "id").Raw
		if _, err := e.out.Write([]byte(`{"id":` + id + `,"result":{}}` + "\x00")); err != nil {
			return
		}
	}
}

// A caller's deadline that passes while its message is being written does
// not cut the message short: the connection is shared, and the next
// caller's message would be glued to the half.
func TestADeadlineMidWriteDoesNotCutTheMessage(t *testing.T) {
	e := newPipeEnd(t)
	// 1 MiB: far more than the pipe holds (64 KiB), so the write is under
	// way when the deadline passes, and waits for the browser to read.
	big := map[string]string{"pad": strings.Repeat("x", 1<<20)}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	first := make(chan error, 1)
	go func() {
		_, err := e.conn.Call(ctx, "", "Browser.getVersion", big)
		first <- err
	}()
	e.underWay()                     // the write has started, and waits for the browser to read
	cancel(context.DeadlineExceeded) // the caller's deadline passes mid-write
	go e.answer()
	// Its answer may beat its deadline to the caller; anything else is wrong.
	if err := <-first; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("the first call: %v, want its answer or its deadline", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), testutil.Guard)
	defer cancel2()
	if _, err := e.conn.Call(ctx2, "", "Browser.getVersion", nil); err != nil {
		t.Fatalf("the next call on the connection: %v", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.invalid) > 0 {
		t.Fatalf("the browser got broken messages: %q", e.invalid)
	}
}

// A caller whose context has ended before its write starts sends nothing
// and the connection goes on; one whose write fails once started (here:
// the browser stops reading and closes its end) ends the connection, and
// says why.
func TestAWriteThatFailsOnceStartedEndsTheConnection(t *testing.T) {
	e := newPipeEnd(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.conn.Call(ctx, "", "Browser.getVersion", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call with an ended context: %v", err)
	}
	select {
	case <-e.conn.Done():
		t.Fatalf("a call that sent nothing ended the connection: %v", e.conn.Err())
	default:
	}

	go func() {
		// Take a little of the message, then go.
		buf := make([]byte, 4096)
		_, _ = e.in.Read(buf)
		e.in.Close()
	}()
	_, err := e.conn.Call(context.Background(), "", "Browser.getVersion", map[string]string{"pad": strings.Repeat("x", 1<<20)})
	if !errors.Is(err, cdp.ErrClosed) {
		t.Fatalf("a call whose write broke: %v, want ErrClosed (a caller tells a dead browser by it)", err)
	}
	select {
	case <-e.conn.Done():
	case <-time.After(testutil.Guard):
		t.Fatal("the connection outlived a write cut short")
	}
	if why := e.conn.Err(); why == nil || !strings.Contains(why.Error(), "write to the browser") || !strings.Contains(why.Error(), "cut short") {
		t.Fatalf("the connection ended with %v", why)
	}
}

// The write lock honours the context while a caller waits for it: a
// caller stuck behind a blocked write gives up when its context ends,
// without writing anything.
func TestAWaitingWriterGivesUpWithItsContext(t *testing.T) {
	toR, toW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer toR.Close()
	tr := cdp.Pipe(toR, toW) // reads from what it writes: only the writes matter here
	defer tr.Close()
	blocked := make(chan error, 1)
	go func() { blocked <- tr.WriteMessage(context.Background(), bytes.Repeat([]byte("x"), 1<<20)) }()
	// The first write has started (its first byte is out) and holds the
	// lock: 1 MiB fills the pipe, and nothing reads on.
	first := make([]byte, 1)
	if _, err := io.ReadFull(toR, first); err != nil {
		t.Fatal(err)
	}
	// The second writer's deadline can only pass while it waits: short is
	// safe, a busy machine only makes it wait longer.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := tr.WriteMessage(ctx, []byte(`{"id":1}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a writer waiting behind a blocked write: %v", err)
	}
	// Drain: the first message arrives whole, and nothing after it.
	got := make(chan []byte, 1)
	go func() {
		r := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(first), toR), 1<<20)
		msg, _ := r.ReadBytes(0)
		got <- msg
	}()
	if err := <-blocked; err != nil {
		t.Fatalf("the blocked write: %v", err)
	}
	if msg := <-got; len(msg) != 1<<20+1 {
		t.Fatalf("the first message arrived with %d bytes", len(msg))
	}
}
