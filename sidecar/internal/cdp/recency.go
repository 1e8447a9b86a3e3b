package cdp

import "slices"

// Recency orders a browser's tabs by activity, most recent last: a tab
// counts as active when it appears, when it navigates, and when it is
// brought to the front. A tab opened in the background is held out of
// the order while it loads its first page, so that it does not take the
// front from the tab the user is in. The coordinator's tab follower and
// the virtual browser both order tabs this way. Not safe for concurrent
// use: its owner's lock guards it.
type Recency[K comparable] struct {
	order []K
	held  map[K]bool
}

// Touch makes k the most recently active tab.
func (r *Recency[K]) Touch(k K) {
	delete(r.held, k)
	r.order = append(slices.DeleteFunc(r.order, func(o K) bool { return o == k }), k)
}

// Hold takes k out of the order until it loads its first page.
func (r *Recency[K]) Hold(k K) {
	if r.held == nil {
		r.held = map[K]bool{}
	}
	r.held[k] = true
	r.Demote(k)
}

// Held says whether k is held out of the order.
func (r *Recency[K]) Held(k K) bool { return r.held[k] }

// Navigated notes a known tab's move from one URL to another: activity,
// but not for a held tab loading its first page, which from then on is as
// any other. It reports whether k became the most recently active.
func (r *Recency[K]) Navigated(k K, from, to string) bool {
	if r.held[k] && IsBlank(from) {
		if !IsBlank(to) {
			delete(r.held, k)
		}
		return false
	}
	r.Touch(k)
	return true
}

// Demote takes k out of the order (it is no candidate until active again).
func (r *Recency[K]) Demote(k K) {
	r.order = slices.DeleteFunc(r.order, func(o K) bool { return o == k })
}

// Forget drops k for good.
func (r *Recency[K]) Forget(k K) {
	r.Demote(k)
	delete(r.held, k)
}

// Order lists the tabs in the order of their activity, most recent last.
func (r *Recency[K]) Order() []K { return r.order }

// Rank numbers the tabs in the order from 1 (least recent); a tab that is
// not in it has none (0).
func (r *Recency[K]) Rank() map[K]int {
	rank := make(map[K]int, len(r.order))
	for i, k := range r.order {
		rank[k] = i + 1
	}
	return rank
}

// Reset empties the order (the held tabs stay held).
func (r *Recency[K]) Reset() { r.order = nil }

// IsBlank: a tab showing nothing yet ("" or about:blank).
func IsBlank(url string) bool { return url == "" || url == "about:blank" }
