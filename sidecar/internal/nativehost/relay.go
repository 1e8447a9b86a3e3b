package nativehost

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/nativemsg"
	"github.com/tidwall/gjson"
)

// The relay: what the host carries when a coordinator has no channel of
// its own (and, always, the hellos and goodbyes).
//
// Toward the extension there is one pipe (stdout) for every coordinator.
// Each coordinator gets a lane: a short queue of native messages, each at
// most Chrome's 1 MB, filled by that coordinator's reader as its bytes
// arrive; the one writer takes from the lanes in turn. A large message
// (up to nativemsg.MaxRequest) crosses as chunks read, escaped and written
// a piece at a time, so it costs the host a few pieces of memory, not its
// size, and every other coordinator's messages pass between its pieces. A
// full lane stops its reader only: that coordinator waits, no other.
//
// Toward the coordinators each has its own writer and queue: a coordinator
// that stops reading is dropped once its queue passes maxQueued, rather
// than stopping the extension's pipe for everyone.

// laneDepth is how many messages a coordinator may have waiting for the
// pipe to the extension.
const laneDepth = 4

// maxQueued bounds the bytes waiting for one coordinator to read them.
const maxQueued = 2 * nativemsg.MaxFromExtension

// fairOut is the one writer to the extension.
type fairOut struct {
	w    io.Writer
	mu   sync.Mutex
	cond *sync.Cond
	ctl  [][]byte // the host's own messages, before any lane's
	// lanes in their turn; next is the one to take from first.
	lanes  []*lane
	next   int
	closed bool
	err    error
	done   chan struct{}
}

// A lane is one coordinator's queue to the extension.
type lane struct {
	o     *fairOut
	items [][]byte // frames (length included)
	gone  bool
}

func newFairOut(w io.Writer) *fairOut {
	o := &fairOut{w: w, done: make(chan struct{})}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// frame prefixes msg with its length in Chrome's byte order.
func frame(msg []byte) []byte {
	f := make([]byte, 4, 4+len(msg))
	binary.NativeEndian.PutUint32(f, uint32(len(msg)))
	return append(f, msg...)
}

// control queues one of the host's own messages (split in chunks when
// over Chrome's limit).
func (o *fairOut) control(msg []byte) error {
	parts := nativemsg.NewSplitter(nativemsg.MaxToExtension).Split(msg)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return o.failure()
	}
	for _, p := range parts {
		o.ctl = append(o.ctl, frame(p))
	}
	o.cond.Broadcast()
	return nil
}

func (o *fairOut) failure() error {
	if o.err != nil {
		return o.err
	}
	return errors.New("the native host is closing")
}

func (o *fairOut) lane() *lane {
	l := &lane{o: o}
	o.mu.Lock()
	o.lanes = append(o.lanes, l)
	o.mu.Unlock()
	return l
}

// put queues a frame on the lane, waiting while the lane is full.
func (l *lane) put(f []byte) error {
	o := l.o
	o.mu.Lock()
	defer o.mu.Unlock()
	for len(l.items) >= laneDepth && !o.closed && !l.gone {
		o.cond.Wait()
	}
	if o.closed {
		return o.failure()
	}
	if l.gone {
		return net.ErrClosed
	}
	l.items = append(l.items, f)
	o.cond.Broadcast()
	return nil
}

// leave ends the lane with a last message (the host's word that its
// coordinator left): what the lane holds is written first, in order, then
// the lane is out of turn.
func (l *lane) leave(last []byte) {
	_ = l.put(frame(last))
	o := l.o
	o.mu.Lock()
	l.gone = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// take waits for the next frame: the host's own first, then the lanes in
// turn, one frame each. After close only the host's own are left.
func (o *fairOut) take() ([]byte, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for {
		if len(o.ctl) > 0 {
			f := o.ctl[0]
			o.ctl = o.ctl[1:]
			return f, true
		}
		for range len(o.lanes) {
			if o.closed {
				break
			}
			if o.next >= len(o.lanes) {
				o.next = 0
			}
			l := o.lanes[o.next]
			if l.gone && len(l.items) == 0 {
				o.lanes = slices.Delete(o.lanes, o.next, o.next+1)
				continue
			}
			o.next++
			if len(l.items) > 0 {
				f := l.items[0]
				l.items[0] = nil
				l.items = l.items[1:]
				o.cond.Broadcast() // room in that lane
				return f, true
			}
		}
		if o.closed {
			return nil, false
		}
		o.cond.Wait()
	}
}

// run writes until close (after what was queued) or a write fails.
func (o *fairOut) run() {
	defer close(o.done)
	for {
		f, ok := o.take()
		if !ok {
			return
		}
		if _, err := o.w.Write(f); err != nil {
			o.mu.Lock()
			o.err, o.closed = fmt.Errorf("write to the extension: %w", err), true
			o.cond.Broadcast()
			o.mu.Unlock()
			return
		}
	}
}

// drain closes and waits until what was queued is written (the fatal
// message of a refused hello).
func (o *fairOut) drain() {
	o.close()
	<-o.done
}

func (o *fairOut) close() {
	o.mu.Lock()
	o.closed = true
	o.cond.Broadcast()
	o.mu.Unlock()
}

// A client is one coordinator's connection.
type client struct {
	id   string
	conn net.Conn
	done chan struct{} // closed when the writer has ended

	mu     sync.Mutex
	cond   *sync.Cond
	queue  [][]byte // messages for the coordinator
	queued int      // their bytes
	closed bool
}

// lastWrite bounds how long a coordinator that is going away is given to
// take what was queued for it (a refusal's reason).
const lastWrite = 5 * time.Second

func newClient(conn net.Conn) *client {
	c := &client{conn: conn, done: make(chan struct{})}
	c.cond = sync.NewCond(&c.mu)
	go c.writeLoop()
	return c
}

// finish writes what is queued (for lastWrite at most), then closes the
// connection.
func (c *client) finish() {
	c.close()
	_ = c.conn.SetWriteDeadline(time.Now().Add(lastWrite))
	<-c.done
	c.conn.Close()
}

// send queues a message for the coordinator. One that has let maxQueued
// bytes pile up unread is dropped: it would otherwise stop the extension's
// messages to every coordinator.
func (c *client) send(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	if c.queued+len(msg) > maxQueued {
		c.closed = true
		c.conn.Close()
		c.cond.Broadcast()
		return
	}
	c.queue = append(c.queue, msg)
	c.queued += len(msg)
	c.cond.Signal()
}

// writeLoop writes what is queued, all of it in one write each time.
func (c *client) writeLoop() {
	defer close(c.done)
	for {
		c.mu.Lock()
		for len(c.queue) == 0 && !c.closed {
			c.cond.Wait()
		}
		if len(c.queue) == 0 {
			c.mu.Unlock()
			return
		}
		batch, n := c.queue, c.queued
		c.queue, c.queued = nil, 0
		c.mu.Unlock()
		err := nativemsg.WriteFrames(c.conn, binary.LittleEndian, batch)
		giveBack(n)
		if err != nil {
			c.close()
			c.conn.Close()
			return
		}
	}
}

// largeMessage is the size from which the host gives the memory of a
// message back to the system once it passed, rather than keep it for
// later: a host lives as long as its browser, and large messages are rare.
const largeMessage = 4 << 20

func giveBack(n int) {
	if n >= largeMessage {
		debug.FreeOSMemory()
	}
}

// close ends the writer once what is queued is written.
func (c *client) close() {
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

func (c *client) fatal(code, message string) {
	b, _ := json.Marshal(nativemsg.Fatal{Type: "error", Code: code, Message: message})
	c.send(b)
}

// relay passes a coordinator's messages to the extension until its
// connection ends.
func (h *host) relay(c *client, l *lane, log *slog.Logger) {
	fr := nativemsg.FrameReader{R: c.conn, Order: binary.LittleEndian, Limit: nativemsg.MaxRequest, Stall: h.stall}
	// What stamps a message with its client: the last member wins in the
	// extension's JSON.parse, so a coordinator cannot speak as another.
	stamp := []byte(`,"client":` + strconv.Quote(c.id) + `}`)
	whole := nativemsg.MaxToExtension - len(stamp)
	for {
		n, err := fr.Header()
		if errors.Is(err, nativemsg.ErrTooLarge) {
			if err = h.refuse(c, &fr, n, err); err == nil {
				continue
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				log.Info("a coordinator's connection ends", "err", err)
			}
			return
		}
		if n <= whole {
			err = h.relayWhole(c, l, &fr, n, stamp)
		} else {
			err = h.relayChunks(c, l, &fr, n)
		}
		if err != nil {
			log.Info("a coordinator's connection ends", "err", err)
			return
		}
	}
}

// relayWhole passes a message that fits in one native message, stamped,
// read straight into the frame that is written (no copy).
func (h *host) relayWhole(c *client, l *lane, fr *nativemsg.FrameReader, n int, stamp []byte) error {
	buf := make([]byte, 4, 4+n+len(stamp))
	buf, err := fr.Body(buf, n)
	if err != nil {
		return err
	}
	msg := buf[4:]
	if _, err := nativemsg.Scan(msg); err != nil {
		c.fatal(nativemsg.CodeInvalid, err.Error())
		return nil
	}
	end := len(msg) - 1
	for msg[end] != '}' { // Scan saw an object: only space follows its '}'
		end--
	}
	buf = append(buf[:4+end], stamp...)
	binary.NativeEndian.PutUint32(buf, uint32(len(buf)-4))
	return l.put(buf)
}

// relayChunks passes a large message in chunks as its bytes arrive. The
// chunks carry the client; the extension stamps the message it joins.
func (h *host) relayChunks(c *client, l *lane, fr *nativemsg.FrameReader, n int) error {
	id := h.chunkID()
	room := nativemsg.ChunkRoom(nativemsg.MaxToExtension)
	piece := make([]byte, 0, room)
	for left, first := n, true; ; first = false {
		want := min(room-len(piece), left)
		var err error
		if piece, err = fr.Body(piece, want); err != nil {
			return err
		}
		left -= want
		if i := firstNonSpace(piece); first && (i < 0 || piece[i] != '{') {
			// Not a message: read the rest and say so.
			if err := discard(fr, left); err != nil {
				return err
			}
			c.fatal(nativemsg.CodeInvalid, "not a protocol message: not a JSON object")
			return nil
		}
		send, carry := piece, []byte(nil)
		if left > 0 {
			send, carry = nativemsg.CutRune(piece) // a character is never cut in two
		}
		f := make([]byte, 4, 4+len(send)+len(send)/8+96)
		f = nativemsg.AppendChunk(f, id, c.id, left == 0, send)
		binary.NativeEndian.PutUint32(f, uint32(len(f)-4))
		if err := l.put(f); err != nil {
			return err
		}
		if left == 0 {
			giveBack(n)
			return nil
		}
		piece = append(piece[:0], carry...) // carry is piece's own tail: copy moves it to the front
	}
}

// refuse reads past a message over the limit (never holding it) and tells
// the coordinator, naming the request when its id comes early enough to
// be read.
func (h *host) refuse(c *client, fr *nativemsg.FrameReader, n int, why error) error {
	head, err := fr.Body(make([]byte, 0, 4096), min(n, 4096))
	if err != nil {
		return err
	}
	if err := discard(fr, n-len(head)); err != nil {
		return err
	}
	msg := why.Error() + ": a message to the browser extension may be at most " + strconv.Itoa(nativemsg.MaxRequest>>20) + " MiB; it was not sent"
	if id := gjson.GetBytes(head, "id"); id.Type == gjson.Number {
		b, _ := json.Marshal(map[string]any{"type": "error", "id": id.Int(), "error": map[string]string{"message": msg}})
		c.send(b)
		return nil
	}
	c.fatal(nativemsg.CodeTooLarge, msg)
	return nil
}

// discard reads and drops n bytes, a piece at a time.
func discard(fr *nativemsg.FrameReader, n int) error {
	buf := make([]byte, 0, 64<<10)
	for n > 0 {
		got, err := fr.Body(buf[:0], min(n, cap(buf)))
		if err != nil {
			return err
		}
		n -= len(got)
	}
	return nil
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

func (h *host) chunkID() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.nextChunk++
	return h.nextChunk
}

// readExtension passes the extension's messages to the coordinators until
// stdin closes. Chunks pass as they are: the coordinator joins them.
func (h *host) readExtension(in io.Reader) error {
	fr := nativemsg.FrameReader{R: in, Order: binary.NativeEndian, Limit: nativemsg.MaxFromExtension, Trusted: true}
	for {
		msg, err := fr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				h.log.Info("the browser extension disconnected")
				return nil
			}
			return fmt.Errorf("read from the extension: %w", err)
		}
		to, ok := clientOf(msg)
		if !ok {
			h.log.Warn("the extension sent a message that is not the protocol", "message", truncate(msg))
			h.fatal(nativemsg.CodeInvalid, "not a protocol message: not a JSON object")
			continue
		}
		h.mu.Lock()
		if to == "" {
			for _, c := range h.clients {
				c.send(msg)
			}
			h.mu.Unlock()
			continue
		}
		c := h.clients[to]
		h.mu.Unlock()
		if c != nil { // else that coordinator has gone; the extension hears of it
			c.send(msg)
		}
	}
}

// clientOf reads a message's "client": first in the extension's messages,
// so a large one is not scanned; "" for a message to every coordinator.
func clientOf(msg []byte) (string, bool) {
	i := firstNonSpace(msg)
	if i < 0 || msg[i] != '{' {
		return "", false
	}
	const head = `{"client":"`
	if rest, ok := cutPrefix(msg[i:], head); ok {
		if end := slices.Index(rest, '"'); end >= 0 && !slices.Contains(rest[:end], '\\') {
			return string(rest[:end]), true
		}
	}
	return gjson.GetBytes(msg, "client").String(), true
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) >= len(p) && string(b[:len(p)]) == p {
		return b[len(p):], true
	}
	return nil, false
}
