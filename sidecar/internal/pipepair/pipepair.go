// Package pipepair makes the two pipes this process and a child it starts
// talk over, and closes each side's ends when their time comes: the
// child's once it has started (it holds copies of its own, and ours must
// close, or reading would never see the child go), ours when no child will
// ever use them. The launcher gives them to a browser as fd 3 and 4
// (--remote-debugging-pipe), childmcp (single-entry and isolated mode) to
// its child MCP as stdin and stdout.
package pipepair

import "os"

// Pair is two pipes: the child reads ChildIn and writes ChildOut; this
// process writes ToChild and reads FromChild.
type Pair struct {
	ChildIn, ChildOut  *os.File // the child's ends
	ToChild, FromChild *os.File // ours
}

// New makes both pipes, or neither.
func New() (*Pair, error) {
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return nil, err
	}
	return &Pair{ChildIn: childIn, ChildOut: childOut, ToChild: toChild, FromChild: fromChild}, nil
}

// CloseChildEnds closes the child's ends, once the child was started (or
// failed to start): from then on it holds the only copies.
func (p *Pair) CloseChildEnds() {
	p.ChildIn.Close()
	p.ChildOut.Close()
}

// CloseOurs closes this process's ends, of pipes no child will use.
func (p *Pair) CloseOurs() {
	p.ToChild.Close()
	p.FromChild.Close()
}
