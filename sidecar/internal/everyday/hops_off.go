//go:build !hoptrace

package everyday

// hop marks a command's way through the Conn for the bench's hop-by-hop
// breakdown (scripts/lib/benchhops.mjs). Without the hoptrace build tag it
// is empty and the compiler drops its calls: the product pays nothing.
func hop(hopPoint, []byte) {}
