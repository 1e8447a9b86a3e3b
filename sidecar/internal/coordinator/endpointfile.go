package coordinator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdpproxy"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/userfile"
)

// The proxy's port and secret are kept per workspace folder, in a small
// private file in the state folder that outlives a clean exit: when the host
// restarts the coordinator of a folder, the new one takes the same endpoint
// again (when the port is free), and a wrapped child MCP that kept the old
// endpoint goes on working.

// endpointsDir is where the per-folder files live, below the state folder.
const endpointsDir = "endpoints"

// savedEndpoint is one folder's port and secret.
type savedEndpoint struct {
	Workspace string `json:"workspace"`
	Port      int    `json:"port"`
	Secret    string `json:"secret"`
}

func (c *Coordinator) endpointFile() string {
	sum := sha256.Sum256([]byte(filepath.Clean(c.workspace)))
	return filepath.Join(c.cfg.StateDir, endpointsDir, hex.EncodeToString(sum[:8])+".json")
}

func (c *Coordinator) loadEndpoint() (savedEndpoint, bool) {
	data, err := userfile.Read(c.endpointFile(), userfile.Private)
	if err != nil {
		if !userfile.IsNotExist(err) {
			c.log.Warn("ignoring the saved endpoint of this folder", "err", err)
		}
		return savedEndpoint{}, false
	}
	var e savedEndpoint
	if json.Unmarshal(data, &e) != nil || e.Workspace != filepath.Clean(c.workspace) || e.Port <= 0 || e.Port > 65535 || len(e.Secret) < 16 {
		return savedEndpoint{}, false
	}
	return e, true
}

func (c *Coordinator) saveEndpoint(e savedEndpoint) {
	if err := userfile.EnsureDir(filepath.Join(c.cfg.StateDir, endpointsDir)); err != nil {
		c.log.Warn("cannot keep this folder's endpoint for the next start", "err", err)
		return
	}
	data, _ := json.Marshal(e)
	if err := userfile.Write(c.endpointFile(), data); err != nil {
		c.log.Warn("cannot keep this folder's endpoint for the next start", "err", err)
	}
}

// listen starts the proxy on this folder's endpoint from last time when it
// can, else on a new one (kept for next time).
func (c *Coordinator) listen() (*cdpproxy.Proxy, error) {
	saved, ok := c.loadEndpoint()
	want := savedEndpoint{Workspace: filepath.Clean(c.workspace), Port: c.cfg.ProxyPort, Secret: saved.Secret}
	if want.Secret == "" {
		want.Secret = randomToken()
	}
	if want.Port == 0 && ok {
		want.Port = saved.Port
	}
	secret := want.Secret
	if c.cfg.NoProxySecret {
		secret = ""
	}
	p, err := cdpproxy.Listen(cdpproxy.Config{Port: want.Port, Resolver: c, Secret: secret, Agents: c.proxyAgents(), Words: c.cfg.Words, Logger: c.log})
	if errors.Is(err, cdpproxy.ErrPortInUse) && c.cfg.ProxyPort == 0 && ok {
		// Whoever holds the port now may have been sent the old secret by a
		// client that kept the endpoint: the secret changes too.
		c.log.Info("this folder's port from last time is taken; the endpoint changes (a new port and secret)", "port", want.Port)
		want.Port, want.Secret = 0, randomToken()
		if secret != "" {
			secret = want.Secret
		}
		p, err = cdpproxy.Listen(cdpproxy.Config{Resolver: c, Secret: secret, Agents: c.proxyAgents(), Words: c.cfg.Words, Logger: c.log})
	}
	if err != nil {
		return nil, err
	}
	if want.Port != p.Port() || !ok || saved.Secret != want.Secret {
		want.Port = p.Port()
		c.saveEndpoint(want)
	}
	return p, nil
}
