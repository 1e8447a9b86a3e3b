package cdp

// SetMaxQueued lowers a relay's MaxQueued for a test, so that a client that
// stops reading is cut off after a few megabytes.
func SetMaxQueued(r *Relay, n int) { r.maxQueued = n }
