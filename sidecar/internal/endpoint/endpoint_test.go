package endpoint

import "testing"

func TestEndpoints(t *testing.T) {
	p := Proxy{Port: 9333, Secret: "s3cret"}
	for got, want := range map[string]string{
		p.Base():                         "http://127.0.0.1:9333",
		p.HTTP():                         "http://127.0.0.1:9333/s3cret",
		p.WS():                           "ws://127.0.0.1:9333/s3cret/devtools/browser/coordinator",
		p.Redacted().HTTP():              "http://127.0.0.1:9333/<secret>",
		p.Redacted().WS():                "ws://127.0.0.1:9333/<secret>/devtools/browser/coordinator",
		Proxy{Port: 1}.WS():              "ws://127.0.0.1:1/devtools/browser/coordinator",
		Proxy{Port: 1}.Redacted().HTTP(): "http://127.0.0.1:1",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
