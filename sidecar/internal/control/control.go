// Package control is the coordinator's control API, served on the CDP proxy
// port under /coordinator/ for the VS Code extension's status bar and the
// CLI's launch|stop|restart: the same actions as the MCP tools, for a
// coordinator that an MCP host started. Every request needs the bearer token
// from the coordinator's state file (mode 0600: only its user can read it).
package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/access"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/coordinator"
	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/remedy"
)

// Actions of the API, each at /coordinator/<action>.
const (
	ActionStatus  = "status"
	ActionLaunch  = "launch"
	ActionStop    = "stop"
	ActionRestart = "restart"
)

// ErrorBody is the body of every error answer: what went wrong, and what
// can be done about it as remedy kinds, which each client says in its own
// words (the command line's flags, the VS Code extension's settings).
type ErrorBody struct {
	Error    string              `json:"error"`
	Remedies []remedy.Remedy     `json:"remedies,omitempty"`
	Status   *coordinator.Status `json:"status,omitempty"`
}

// Handler serves the control API of c; token is its bearer token.
func Handler(c *coordinator.Coordinator, token string) http.Handler {
	return &handler{c: c, token: token}
}

type handler struct {
	c     *coordinator.Coordinator
	token string
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !access.BearerIs(r, h.token) {
		w.Header().Set("Connection", "close") // a refused client keeps no connection slot
		w.Header().Set("WWW-Authenticate", `Bearer realm="browser-coordinator"`)
		writeError(w, http.StatusUnauthorized, errors.New("missing or wrong bearer token: send Authorization: Bearer <controlToken> from the coordinator's state file"), nil)
		return
	}
	action := strings.TrimPrefix(r.URL.Path, "/coordinator/")
	want := http.MethodPost
	if action == ActionStatus {
		want = http.MethodGet
	}
	switch action {
	case ActionStatus, ActionLaunch, ActionStop, ActionRestart:
	default:
		writeError(w, http.StatusNotFound, fmt.Errorf("unknown action %q: use GET /coordinator/status or POST /coordinator/launch, /stop, /restart", action), nil)
		return
	}
	if r.Method != want {
		w.Header().Set("Allow", want)
		writeError(w, http.StatusMethodNotAllowed, fmt.Errorf("/coordinator/%s needs %s", action, want), nil)
		return
	}

	ctx := r.Context()
	var (
		s   coordinator.Status
		err error
	)
	switch action {
	case ActionStatus:
		s = h.c.Status()
	case ActionLaunch:
		var req coordinator.LaunchRequest
		if err := decode(r.Body, &req); err != nil {
			writeError(w, http.StatusBadRequest, err, nil)
			return
		}
		s, err = h.c.LaunchWith(ctx, req)
	case ActionStop:
		s, err = h.c.Stop(ctx)
	case ActionRestart:
		s, err = h.c.Restart(ctx)
	}
	var bad *coordinator.BadRequestError
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, err, &s)
	case err != nil:
		writeError(w, http.StatusBadGateway, err, &s)
	default:
		writeJSON(w, http.StatusOK, s)
	}
}

// decode reads launch options; an empty body means "no changes".
func decode(body io.Reader, v any) error {
	data, err := io.ReadAll(io.LimitReader(body, 1<<20))
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad launch options: %v; allowed: browserType (string), browserPath (string), headless (boolean), url (string)", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, err error, s *coordinator.Status) {
	writeJSON(w, code, ErrorBody{Error: err.Error(), Remedies: remedy.Of(err), Status: s})
}

// Client calls a coordinator's control API.
type Client struct {
	Endpoint string // http://127.0.0.1:PORT
	Token    string
	HTTP     *http.Client // nil: a client without a timeout (launches take seconds)
}

// Do runs action with body (nil, or launch options) and returns the status.
// An error answer still returns the status it carried, if any, and its
// error carries the answer's remedies.
func (c Client) Do(ctx context.Context, action string, body any) (coordinator.Status, error) {
	var s coordinator.Status
	method := http.MethodPost
	if action == ActionStatus {
		method = http.MethodGet
	}
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return s, err
		}
		rd = strings.NewReader(string(data))
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Endpoint+"/coordinator/"+action, rd)
	if err != nil {
		return s, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return s, fmt.Errorf("coordinator at %s does not answer: %w", c.Endpoint, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return s, err
	}
	if resp.StatusCode == http.StatusOK {
		return s, json.Unmarshal(data, &s)
	}
	var e ErrorBody
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		return s, fmt.Errorf("coordinator answered %s: %s", resp.Status, strings.TrimSpace(string(data)))
	}
	if e.Status != nil {
		s = *e.Status
	}
	return s, &remedy.Error{Err: errors.New(e.Error), Remedies: e.Remedies}
}
