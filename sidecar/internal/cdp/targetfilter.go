package cdp

import "encoding/json"

// TargetFilterEntry is one entry of the Target domain's TargetFilter.
type TargetFilterEntry struct {
	Type    string `json:"type,omitempty"`
	Exclude bool   `json:"exclude,omitempty"`
}

// TargetFilter is a Target.TargetFilter: the first entry whose type
// matches (or that names no type) decides; no match excludes.
type TargetFilter []TargetFilterEntry

// DefaultTargetFilter is what Chrome applies when a call gives none:
// everything but the browser and tab targets.
func DefaultTargetFilter() TargetFilter {
	return TargetFilter{{Type: "browser", Exclude: true}, {Type: "tab", Exclude: true}, {}}
}

// ParseTargetFilter reads a command's filter parameter; none (or one that
// cannot be read) is the default.
func ParseTargetFilter(raw json.RawMessage) TargetFilter {
	var f TargetFilter
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || len(f) == 0 {
		return DefaultTargetFilter()
	}
	return f
}

// Allows says whether the filter lets targets of a type through.
func (f TargetFilter) Allows(targetType string) bool {
	for _, e := range f {
		if e.Type == "" || e.Type == targetType {
			return !e.Exclude
		}
	}
	return false
}
