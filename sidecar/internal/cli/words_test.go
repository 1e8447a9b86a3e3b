package cli

import (
	"strings"
	"testing"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/mcpserver"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Every remedy a low layer can name is said on every surface: the command
// line's, and each MCP surface over it.
func TestEveryRemedyIsSaidOnEverySurface(t *testing.T) {
	surfaces := map[string]remedy.Words{
		"command line":              startWords(),
		"install":                   installWords(),
		"MCP (default)":             mcpserver.Words(mcpserver.Options{StartWords: startWords()}),
		"MCP (--tools progressive)": mcpserver.Words(mcpserver.Options{Progressive: true, StartWords: startWords()}),
	}
	for name, w := range surfaces {
		for _, k := range remedy.Kinds() {
			if w[k] == "" {
				t.Errorf("%s: no words for %s", name, k)
			}
		}
	}
	for _, k := range remedy.Kinds() {
		if strings.Contains(startWords()[k], "coordinator_") {
			t.Errorf("the command line names a tool for %s: %q", k, startWords()[k])
		}
	}
}
