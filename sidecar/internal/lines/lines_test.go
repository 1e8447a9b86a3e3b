package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nafter\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
	}{{"short\n", false}, {"", true}, {"after\n", false}, {"last", false}} {
		line, tooLong, err := Read(r, 50)
		if string(line) != want.line || tooLong != want.tooLong {
			t.Fatalf("got %q %v %v; want %q %v", line, tooLong, err, want.line, want.tooLong)
		}
		if want.line == "last" && !errors.Is(err, io.EOF) {
			t.Fatalf("the last line comes with EOF: %v", err)
		}
	}
}
