package osdirs

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// Case is one line of testdata/cases.json, which the VS Code extension's
// tests read too (extension/test/stateFile.test.ts, product.test.ts): the
// two sides agree on every OS's folders.
type Case struct {
	Name        string            `json:"name"`
	OS          string            `json:"os"`
	Home        string            `json:"home"`
	Env         map[string]string `json:"env"`
	AppData     *string           `json:"appData"`
	BrowserData *string           `json:"browserData"`
	StateBase   *string           `json:"stateBase"`
}

func TestFoldersOfEveryOS(t *testing.T) {
	data, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			e := Env{GOOS: c.OS, Home: c.Home, Getenv: func(k string) string { return c.Env[k] }}
			for _, f := range []struct {
				what string
				want *string
				get  func() (string, error)
			}{{"AppData", c.AppData, e.AppData}, {"BrowserData", c.BrowserData, e.BrowserData}, {"StateBase", c.StateBase, e.StateBase}} {
				got, err := f.get()
				switch {
				case f.want == nil && !errors.Is(err, ErrNoHome):
					t.Errorf("%s = %q, %v; want ErrNoHome", f.what, got, err)
				case f.want != nil && (err != nil || got != *f.want):
					t.Errorf("%s = %q, %v; want %q", f.what, got, err, *f.want)
				}
			}
		})
	}
}
