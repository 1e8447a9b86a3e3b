package pipepair

import (
	"errors"
	"io"
	"os"
	"testing"
)

// Each pipe carries bytes one way, and once the child's ends are closed
// (the child gone) reading ours sees the end instead of waiting for ever.
func TestThePipesRunEachWayAndEndWithTheChildsEnds(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.CloseOurs)
	roundTrip := func(w, r *os.File, what string) {
		t.Helper()
		if _, err := w.Write([]byte(what)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(what))
		if _, err := io.ReadFull(r, got); err != nil || string(got) != what {
			t.Fatalf("read %q, %v; want %q", got, err, what)
		}
	}
	roundTrip(p.ToChild, p.ChildIn, "to the child")
	roundTrip(p.ChildOut, p.FromChild, "from the child")

	p.CloseChildEnds()
	if n, err := p.FromChild.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("reading from a child whose ends are closed: %d, %v; want io.EOF", n, err)
	}
	if _, err := p.ToChild.Write([]byte("x")); err == nil {
		t.Fatal("writing to a child whose ends are closed succeeded")
	}
}
