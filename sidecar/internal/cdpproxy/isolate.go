package cdpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/cdp"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/endpoint"
	"github.com/tidwall/gjson"
)

// Isolated clients (--isolated). An agent's endpoint is the proxy's with the
// agent's own secret in place of the coordinator's
// (http://127.0.0.1:PORT/<agent secret>): every client that comes through it
// works in that agent's browser contexts (cdp.AgentContexts), through a
// cdp.Isolation; the URLs the proxy hands it (/json/version's, /json/list's)
// carry the same secret, so that what it connects to next is its agent's
// too. A client of the coordinator's own endpoint joins whatever the
// Isolation says that endpoint is (one agent, or a context per connection).
//
// Clients of a backend without an Isolation are served as before: no
// policy, no cost.

// Agents knows the secrets of an isolated coordinator's agents.
type Agents interface {
	// IsAgent reports whether secret is an agent's.
	IsAgent(secret string) bool
}

// Isolation gives the clients of one backend their agents' contexts.
type Isolation interface {
	// Join hands a WebSocket client the contexts of the agent whose secret
	// it came with ("" for the coordinator's own endpoint); leave is
	// called when it goes.
	Join(ctx context.Context, agent string) (ctxs *cdp.AgentContexts, leave func(), err error)
	// Peek is the agent's contexts for a /json request; nil when the
	// endpoint gives each connection contexts of its own (a request has
	// none).
	Peek(ctx context.Context, agent string) (*cdp.AgentContexts, error)
}

type agentKey struct{}

// withAgent carries the agent a request came for ("" for the coordinator's
// own endpoint).
func withAgent(r *http.Request, agent string) *http.Request {
	if agent == "" {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), agentKey{}, agent))
}

func agentOf(r *http.Request) string {
	a, _ := r.Context().Value(agentKey{}).(string)
	return a
}

// isAgent: secret is one of the coordinator's agents'.
func (p *Proxy) isAgent(secret string) bool {
	return p.cfg.Agents != nil && secret != "" && p.cfg.Agents.IsAgent(secret)
}

// endpointsFor are the endpoints of whoever r came from: an agent's, or
// the coordinator's own.
func (p *Proxy) endpointsFor(r *http.Request) endpoint.Proxy {
	if a := agentOf(r); a != "" {
		return endpoint.Proxy{Port: p.port, Secret: a}
	}
	return p.Endpoints()
}

// isolate prepares an isolated WebSocket client: the policy its relay uses
// and what ends it, after checking that a page-level client's page is one
// of its agent's (on caller). Without an Isolation it returns a nil policy
// and a leave that does nothing. err is a refusal for the client.
func (p *Proxy) isolate(r *http.Request, b Backend, page string, caller cdp.Caller) (cdp.Policy, func(), error) {
	if b.Isolation == nil {
		if agentOf(r) != "" {
			return nil, func() {}, errors.New("this agent's endpoint is no longer served: the browser behind it cannot give agents contexts of their own")
		}
		return nil, func() {}, nil
	}
	ctxs, leave, err := b.Isolation.Join(r.Context(), agentOf(r))
	if err != nil {
		return nil, func() {}, err
	}
	if page != "" {
		if err := checkTarget(r.Context(), caller, ctxs, page); err != nil {
			leave()
			return nil, func() {}, err
		}
	}
	policy := cdp.NewIsolation(ctxs)
	return policy, func() { policy.Close(); leave() }, nil
}

// errNotAgents: a target that is not in the client's contexts (or none).
var errNotAgents = errors.New("no such target among this client's (see /json/list)")

// checkTarget: target is in one of ctxs (nil: none are).
func checkTarget(ctx context.Context, caller cdp.Caller, ctxs *cdp.AgentContexts, target string) error {
	if ctxs == nil {
		return fmt.Errorf("%s: %w", target, errNotAgents)
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	info, err := caller.Call(ctx, "", "Target.getTargetInfo", map[string]string{"targetId": target})
	if err != nil {
		if errors.Is(err, cdp.ErrClosed) {
			return err
		}
		return fmt.Errorf("%s: %w", target, errNotAgents)
	}
	if !ctxs.Has(gjson.GetBytes(info, "targetInfo.browserContextId").String()) {
		return fmt.Errorf("%s: %w", target, errNotAgents)
	}
	return nil
}

// isolatedJSON answers the /json requests that are about targets for an
// isolated backend: the agent's targets only, a new one in its context.
// It returns false for the others (/json/version, /json/protocol), which
// are answered as usual.
func (p *Proxy) isolatedJSON(w http.ResponseWriter, r *http.Request, path string, b Backend) bool {
	path = strings.TrimSuffix(path, "/")
	isNew := path == "/json/new"
	activate, isActivate := strings.CutPrefix(path, "/json/activate/")
	closing, isClose := strings.CutPrefix(path, "/json/close/")
	if !isList(path) && !isNew && !isActivate && !isClose {
		return false
	}
	if isNew && r.Method != http.MethodPut {
		http.Error(w, "browser-coordinator: /json/new needs PUT, as in Chromium", http.StatusMethodNotAllowed)
		return true
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	defer cancel()
	ctxs, err := b.Isolation.Peek(ctx, agentOf(r))
	if err != nil {
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusBadGateway)
		return true
	}
	if isNew && ctxs == nil {
		access.Refuse(w, http.StatusConflict, "browser-coordinator: this coordinator gives each connection to this endpoint browser contexts of its own (--isolated), which live as long as its WebSocket: "+
			"open a page on your connection (Target.createTarget), or use your agent's endpoint (coordinator_status shows it)")
		return true
	}
	var caller cdp.Caller = b.Conn
	if b.Conn == nil {
		conn, err := b.Endpoint.Dial(ctx, nil)
		if err != nil {
			http.Error(w, "browser-coordinator: browser not reachable: "+err.Error(), http.StatusBadGateway)
			return true
		}
		defer conn.Close()
		caller = conn
	}
	host := p.endpointsFor(r).Authority()
	switch {
	case isList(path):
		var list []map[string]string
		if list, err = agentTargets(ctx, caller, ctxs, host); err == nil {
			data, _ := json.Marshal(list)
			writeJSON(w, http.StatusOK, data)
		}
	case isNew:
		u := firstOr(r.URL.RawQuery, "about:blank")
		var res json.RawMessage
		if res, err = caller.Call(ctx, "", "Target.createTarget", map[string]any{"url": u, "browserContextId": ctxs.Base()}); err == nil {
			data, _ := json.Marshal(listEntry(cdp.Target{ID: gjson.GetBytes(res, "targetId").String(), Type: "page", URL: u}, host))
			writeJSON(w, http.StatusOK, data)
		}
	default:
		target, method, said := activate, "Target.activateTarget", "Target activated"
		if isClose {
			target, method, said = closing, "Target.closeTarget", "Target is closing"
		}
		if err = checkTarget(ctx, caller, ctxs, target); errors.Is(err, errNotAgents) {
			http.Error(w, "browser-coordinator: "+err.Error(), http.StatusNotFound)
			return true
		}
		if err == nil {
			if _, err = caller.Call(ctx, "", method, map[string]string{"targetId": target}); err == nil {
				fmt.Fprint(w, said)
			}
		}
	}
	if err != nil {
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusBadGateway)
	}
	return true
}

// agentTargets lists the agent's targets (none when it has no contexts
// yet) as /json/list does, with host in their URLs.
func agentTargets(ctx context.Context, caller cdp.Caller, ctxs *cdp.AgentContexts, host string) ([]map[string]string, error) {
	list := []map[string]string{}
	if ctxs == nil {
		return list, nil
	}
	res, err := caller.Call(ctx, "", "Target.getTargets", nil)
	if err != nil {
		return nil, err
	}
	var got struct{ TargetInfos []cdp.Target }
	_ = json.Unmarshal(res, &got)
	for _, t := range got.TargetInfos {
		if t.Type != "browser" && t.Type != "tab" && ctxs.Has(t.BrowserContextID) {
			list = append(list, listEntry(t, host))
		}
	}
	return list, nil
}

// refuseAgent answers a request through an agent's endpoint when the
// backend cannot isolate (it would see the whole browser): true when it did.
func (p *Proxy) refuseAgent(w http.ResponseWriter, r *http.Request, b Backend) bool {
	if agentOf(r) == "" || b.Isolation != nil {
		return false
	}
	http.Error(w, "browser-coordinator: this agent's endpoint is not served now: the browser behind the coordinator cannot give agents browser contexts of their own", http.StatusServiceUnavailable)
	return true
}

// refuseIsolated answers a WebSocket client isolate refused; a connection
// that closed under the check is returned, for the caller to try the next
// backend.
func (p *Proxy) refuseIsolated(w http.ResponseWriter, r *http.Request, err error) error {
	switch {
	case errors.Is(err, cdp.ErrClosed) && r.Context().Err() == nil:
		return err
	case errors.Is(err, errNotAgents):
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusNotFound)
	default:
		http.Error(w, "browser-coordinator: "+err.Error(), http.StatusBadGateway)
	}
	return nil
}
