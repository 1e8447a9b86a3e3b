package cdp

import (
	"slices"
	"testing"
)

func TestRecencyHoldsABackgroundTabUntilItsFirstPage(t *testing.T) {
	var r Recency[int]
	r.Touch(1)
	r.Touch(2)
	r.Hold(3)
	if r.Navigated(3, "about:blank", "about:blank") || !r.Held(3) {
		t.Fatal("a held tab that stays blank is no activity")
	}
	if r.Navigated(3, "about:blank", "https://a.test/") || r.Held(3) {
		t.Fatal("a held tab's first page is no activity, and ends the hold")
	}
	if !r.Navigated(3, "https://a.test/", "https://b.test/") {
		t.Fatal("a navigation after the first page is activity")
	}
	r.Touch(1)
	if got := r.Order(); !slices.Equal(got, []int{2, 3, 1}) {
		t.Fatalf("order %v; want [2 3 1]", got)
	}
	if rank := r.Rank(); rank[2] != 1 || rank[1] != 3 || rank[9] != 0 {
		t.Fatalf("rank %v", rank)
	}
	r.Forget(3)
	r.Reset()
	if len(r.Order()) != 0 || r.Held(3) {
		t.Fatal("Forget and Reset leave nothing")
	}
}
