package cdp

import (
	"strings"
	"testing"
)

// The queue's bound never refuses a message that finds the queue empty
// (MaxMessage is larger than MaxQueued); a message on top of others that
// would pass the bound cuts the client off, and the reason says what
// happened.
func TestTheQueueAlwaysTakesOneMessage(t *testing.T) {
	if MaxMessage <= MaxQueued {
		t.Fatalf("MaxMessage %d, MaxQueued %d: the case this test is for is gone", MaxMessage, MaxQueued)
	}
	r := NewRelay(nil)
	defer r.Close()
	r.maxQueued = 1 << 20
	if err := r.enqueue(parts{body: make([]byte, 3<<20)}); err != nil {
		t.Fatalf("a 3 MiB message into an empty queue bounded at 1 MiB: %v", err)
	}
	err := r.enqueue(parts{body: make([]byte, 10)})
	if err == nil || !strings.Contains(err.Error(), "did not read 3 MiB of CDP messages") {
		t.Fatalf("a message on top of 3 MiB unread: %v", err)
	}
	if r.Context().Err() == nil {
		t.Fatal("the relay goes on after cutting its client off")
	}
}
