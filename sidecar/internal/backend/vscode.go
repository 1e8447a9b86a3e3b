package backend

// VSCodeStatus says how the coordinator relates to VS Code; the VS Code tier
// watcher sets it.
type VSCodeStatus struct {
	Inside bool   `json:"inside"`           // running in VS Code (TERM_PROGRAM or VSCODE_PID)
	Tier   int    `json:"tier"`             // 2: VS Code's own browser view; 1: a launched browser
	Port   int    `json:"port,omitempty"`   // VS Code's CDP port, when known
	Source string `json:"source,omitempty"` // which step found it: VSCODE_CDP_PORT, port file, parent process
	Reason string `json:"reason"`           // why this tier, in words
}
