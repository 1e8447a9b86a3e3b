//go:build unix

package childmcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A child given by absolute path finds the interpreter beside it, though
// PATH lacks that folder: what `install --host claude-desktop` relies on
// for npx (`#!/usr/bin/env node`) under a desktop app's short PATH. The
// stand-ins: fakenpx starts with `#!/usr/bin/env fakenode`, and fakenode is
// this test binary, which runs as the fake child MCP.
func TestAnAbsoluteCommandFindsItsNeighbours(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(exe, filepath.Join(dir, "fakenode")); err != nil {
		t.Fatal(err)
	}
	npx := filepath.Join(dir, "fakenpx")
	if err := os.WriteFile(npx, []byte("#!/usr/bin/env fakenode\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(os.Getenv("PATH"), dir) {
		t.Fatal("the test's PATH must not hold the stand-ins' folder")
	}
	c := New(Config{Command: []string{npx}, Env: []string{fakeEnv + "=normal"}, Stderr: os.Stderr})
	defer c.Close()
	tools, err := c.Start(context.Background())
	if err != nil || len(tools) != len(fakeTools) {
		t.Fatalf("start %s: %d tools, %v", npx, len(tools), err)
	}
}
