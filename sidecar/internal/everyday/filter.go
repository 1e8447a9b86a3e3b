package everyday

import "encoding/json"

// filterEntry is one entry of CDP's Target.TargetFilter.
type filterEntry struct {
	Type    string `json:"type,omitempty"`
	Exclude bool   `json:"exclude,omitempty"`
}

// filter is a Target.TargetFilter: the first entry whose type matches (or
// that names no type) decides; no match excludes.
type filter []filterEntry

// defaultFilter is what Chrome applies when a call gives none: everything
// but the browser and tab targets.
func defaultFilter() filter {
	return filter{{Type: "browser", Exclude: true}, {Type: "tab", Exclude: true}, {}}
}

func parseFilter(raw json.RawMessage) filter {
	var f filter
	if len(raw) == 0 || json.Unmarshal(raw, &f) != nil || len(f) == 0 {
		return defaultFilter()
	}
	return f
}

func (f filter) allows(targetType string) bool {
	for _, e := range f {
		if e.Type == "" || e.Type == targetType {
			return !e.Exclude
		}
	}
	return false
}
