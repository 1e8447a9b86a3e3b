package rpccheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		code int
		want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0, ""},
		{`{oops`, ParseError, "not valid JSON"},
		{``, ParseError, "not valid JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, InvalidRequest, "batches are not supported"},
		{`"x"`, InvalidRequest, "a JSON object"},
		{`{"jsonrpc":"2.0","id":true,"method":"x"}`, InvalidRequest, "got true"},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, InvalidRequest, "got null"},
		{`{"jsonrpc":"2.0","id":[],"method":"x"}`, InvalidRequest, "got []"},
		{`{"jsonrpc":"2.0","id":{},"method":"x"}`, InvalidRequest, "got {}"},
		{`{"jsonrpc":"1.0","id":7,"method":"x"}`, InvalidRequest, `"jsonrpc" must be "2.0"`},
		{strings.Repeat("[", 20000), ParseError, "not valid JSON"},
	} {
		p := Check([]byte(tc.msg))
		if tc.code == 0 {
			if p != nil {
				t.Errorf("%s: refused: %v", tc.msg, p)
			}
			continue
		}
		if p == nil || p.Code != tc.code || !strings.Contains(p.Message, tc.want) {
			t.Errorf("%.40s: %+v; want %d %q", tc.msg, p, tc.code, tc.want)
			continue
		}
		var ans struct {
			JSONRPC string             `json:"jsonrpc"`
			ID      json.RawMessage    `json:"id"`
			Error   struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal(p.Answer(), &ans); err != nil || ans.JSONRPC != "2.0" || ans.Error.Code != tc.code {
			t.Errorf("%.40s: answer %s (%v)", tc.msg, p.Answer(), err)
		}
	}
	// A usable id is kept in the answer.
	if p := Check([]byte(`{"jsonrpc":"1.0","id":7,"method":"x"}`)); !bytes.Contains(p.Answer(), []byte(`"id":7`)) {
		t.Errorf("answer %s", p.Answer())
	}
}

func TestFilter(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"a"}`,
		`[1]`,
		``,
		strings.Repeat("x", 3<<20),
		`{"jsonrpc":"2.0","id":2,"method":"b"}`,
	}, "\n") + "\n"
	var answers bytes.Buffer
	out := Filter(strings.NewReader(in), &LockedWriter{W: &answers}, 1<<20)
	passed, err := io.ReadAll(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(passed); got != `{"jsonrpc":"2.0","id":1,"method":"a"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"b"}`+"\n" {
		t.Fatalf("passed on: %q", got)
	}
	sc := bufio.NewScanner(&answers)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 2 || !strings.Contains(lines[0], "batches") || !strings.Contains(lines[1], "larger than 1 MiB") {
		t.Fatalf("answers: %q", lines)
	}
}
