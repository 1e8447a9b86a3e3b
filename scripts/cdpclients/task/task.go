// Package task is the small job each Go CDP client does in the end-to-end
// tests (scripts/e2e/clients.test.mjs), the way its users would: connect
// to an endpoint, open a page, read its title, click its button, take a
// screenshot. The test checks the effects on its page server and in the
// screenshot; the program reports what it read.
package task

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"
)

// Args are the command line every client takes.
type Args struct {
	Endpoint string // what the user hands the client
	Page     string // the page to open
	Shot     string // where to write the screenshot (PNG)
	Resolve  bool   // go-rod: resolve an http endpoint with launcher.ResolveURL first
}

// Timeout bounds the whole task: a failure guard, far above what it takes.
const Timeout = 90 * time.Second

// Parse reads the command line.
func Parse() Args {
	var a Args
	flag.StringVar(&a.Endpoint, "endpoint", "", "the CDP endpoint (http:// or ws://)")
	flag.StringVar(&a.Page, "page", "", "the page to open")
	flag.StringVar(&a.Shot, "shot", "", "where to write the screenshot")
	flag.BoolVar(&a.Resolve, "resolve", false, "resolve the endpoint with the library's own discovery first")
	flag.Parse()
	if a.Endpoint == "" || a.Page == "" || a.Shot == "" {
		Fail(fmt.Errorf("usage: %s -endpoint URL -page URL -shot FILE [-resolve]", os.Args[0]))
	}
	return a
}

// Done writes the screenshot and prints what was read, as one JSON line.
func Done(a Args, title, after string, png []byte) {
	if err := os.WriteFile(a.Shot, png, 0o600); err != nil {
		Fail(err)
	}
	out, _ := json.Marshal(map[string]any{"title": title, "after": after, "shotBytes": len(png)})
	fmt.Println(string(out))
}

// Fail reports err and exits 1.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}
