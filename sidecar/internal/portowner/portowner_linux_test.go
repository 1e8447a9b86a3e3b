package portowner

import (
	"net"
	"strings"
	"testing"
)

func TestMine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := Mine(port); err != nil {
		t.Fatalf("a port this process listens on: %v", err)
	}
	ln.Close()
	if err := Mine(port); err == nil || !strings.Contains(err.Error(), "no listening socket") {
		t.Fatalf("a port nothing listens on: %v", err)
	}
}
