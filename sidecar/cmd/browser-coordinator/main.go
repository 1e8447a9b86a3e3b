// Command browser-coordinator owns a browser's lifecycle for MCP clients and
// serves it on one stable CDP proxy port. All logic lives in internal/cli.
package main

import (
	"os"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
