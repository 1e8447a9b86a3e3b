package remedy

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

var errCause = errors.New("no browser found")

func TestOfFindsRemediesAcrossTheChainInnermostFirst(t *testing.T) {
	inner := WithArg(errCause, Executable, "/usr/bin/chromium")
	err := With(fmt.Errorf("launch: %w", With(inner, BrowserPath)), Reconnect, BrowserPath)
	got := Of(err)
	want := []Remedy{{Kind: Executable, Arg: "/usr/bin/chromium"}, {Kind: BrowserPath}, {Kind: Reconnect}}
	if !slices.Equal(got, want) {
		t.Fatalf("Of = %v, want %v (innermost first, each kind once)", got, want)
	}
	if !errors.Is(err, errCause) {
		t.Fatal("the cause is lost")
	}
	joined := errors.Join(With(errors.New("a"), OpenTab), With(errors.New("b"), StateDir))
	if got := Of(joined); !slices.Equal(got, []Remedy{{Kind: OpenTab}, {Kind: StateDir}}) {
		t.Fatalf("Of(joined) = %v", got)
	}
	if Of(nil) != nil || Of(errCause) != nil || With(nil, OpenTab) != nil {
		t.Fatal("no error, or none with remedies, has none")
	}
}

func TestWordsPhraseTheRemediesTheyKnow(t *testing.T) {
	w := Words{
		BrowserPath: "pass --browser-path",
		Executable:  "pass an executable (for example {arg})",
	}
	err := With(WithArg(errCause, Executable, "/usr/bin/chromium"), BrowserPath, OpenTab)
	if got, want := w.Error(err), "no browser found; pass an executable (for example /usr/bin/chromium); pass --browser-path"; got != want {
		t.Fatalf("Error = %q, want %q (a kind without words is left unsaid)", got, want)
	}
	if err.Error() != "no browser found" {
		t.Fatalf("the error's own text names no remedy: %q", err)
	}
	if got := (Words{OpenTab: "call open_tab"}).Over(w)[BrowserPath]; got != "pass --browser-path" {
		t.Fatalf("Over keeps the base's words where it has none: %q", got)
	}
	if Words(nil).Error(err) != "no browser found" {
		t.Fatal("no words: the text alone")
	}
}

func TestPhrasedIsSaidOnce(t *testing.T) {
	proxy := Words{OpenTab: "call open_tab"}
	err := proxy.Phrased(fmt.Errorf("view: %w", Sentinel("no view", OpenTab)))
	if err.Error() != "view: no view; call open_tab" {
		t.Fatalf("Phrased = %q", err)
	}
	// An edge that phrases it again adds nothing: it was said already.
	if got := (Words{OpenTab: "call coordinator_open_tab"}).Error(fmt.Errorf("open: %w", err)); got != "open: view: no view; call open_tab" {
		t.Fatalf("phrased twice: %q", got)
	}
	if proxy.Phrased(errCause) != errCause {
		t.Fatal("an error without remedies is left as it is")
	}
}

func TestDescribeNamesTheKinds(t *testing.T) {
	err := With(WithArg(errCause, Executable, "/x"), BrowserPath)
	if got, want := Describe(err), "no browser found; [executable /x]; [browser-path]"; got != want {
		t.Fatalf("Describe = %q, want %q", got, want)
	}
}
