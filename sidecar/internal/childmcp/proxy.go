package childmcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Proxy serves a Child's tools from an MCP server, next to the server's own.
type Proxy struct {
	srv      *server.MCPServer
	child    *Child
	ensure   func(context.Context) error
	ready    chan struct{}  // closed when the first start has ended
	sessions sync.Map       // session id → server.ClientSession, for log messages
	work     sync.WaitGroup // the first start and log level changes under way; Close waits
}

// Serve starts the child in the background and serves its tools from srv.
// srv answers initialize at once; the first tools/list waits until the
// child has listed its tools (or failed to start), so the very first list is
// complete. ensure runs before every call of a child tool: it starts the
// browser if none runs. Serve must be called before srv serves anyone.
func Serve(srv *server.MCPServer, child *Child, ensure func(context.Context) error) *Proxy {
	p := &Proxy{srv: srv, child: child, ensure: ensure, ready: make(chan struct{})}
	hooks := srv.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(srv)
	}
	hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest) { p.wait(ctx) })
	// A client that calls a tool it knows without listing first waits too.
	hooks.AddBeforeCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest) {
		if srv.GetTool(req.Params.Name) == nil {
			p.wait(ctx)
		}
	})
	hooks.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) { p.sessions.Store(s.SessionID(), s) })
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { p.sessions.Delete(s.SessionID()) })
	hooks.AddAfterSetLevel(func(_ context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		// The child logs for every session at once: it gets the level
		// asked for last.
		if caps, ok := child.Capabilities(); ok && caps.Logging != nil {
			p.work.Add(1)
			go func() {
				defer p.work.Done()
				_, _ = child.Call(child.ctx, string(mcp.MethodSetLogLevel), map[string]any{"level": req.Params.Level})
			}()
		}
	})
	// The child's log messages reach the sessions that asked for them.
	server.WithLogging()(srv)
	child.OnNotification(p.forward)

	p.work.Add(1)
	go func() {
		defer p.work.Done()
		defer close(p.ready)
		tools, err := child.Start(child.ctx)
		if err == nil {
			p.register(tools)
		}
	}()
	return p
}

// wait waits for the child's first start to end, or for ctx.
func (p *Proxy) wait(ctx context.Context) {
	select {
	case <-p.ready:
	case <-ctx.Done():
	}
}

// Close stops the child and waits for what the proxy started.
func (p *Proxy) Close() error {
	err := p.child.Close()
	p.work.Wait()
	return err
}

func (p *Proxy) register(tools []Tool) {
	own := p.srv.ListTools()
	var batch []server.ServerTool
	for _, t := range tools {
		if _, taken := own[t.Name]; taken {
			p.child.log.Warn("the child MCP has a tool with the name of one of ours; it is not served", "tool", t.Name)
			continue
		}
		tool, err := toMCPTool(t)
		if err != nil {
			p.child.log.Warn("a tool of the child MCP cannot be served", "tool", t.Name, "err", err)
			continue
		}
		batch = append(batch, server.ServerTool{Tool: tool, Handler: p.call})
	}
	// All at once: one list_changed for the lot, where the server sends
	// them. mcp-go refuses a whole batch for one tool it rejects (a panic):
	// then one by one, so that it costs that tool only.
	if len(batch) == 0 || p.add(batch...) == nil {
		return
	}
	for _, st := range batch {
		if err := p.add(st); err != nil {
			p.child.log.Warn("a tool of the child MCP cannot be served", "tool", st.Tool.Name, "err", err)
		}
	}
}

// add registers tools; mcp-go panics on a schema it rejects.
func (p *Proxy) add(tools ...server.ServerTool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p.srv.AddTools(tools...)
	return nil
}

// toMCPTool carries a listed tool over with its schemas as raw JSON: mcp-go's
// typed InputSchema would drop $schema, description, anyOf, $defs … .
func toMCPTool(t Tool) (mcp.Tool, error) {
	var w struct {
		Title        string              `json:"title"`
		Description  string              `json:"description"`
		InputSchema  json.RawMessage     `json:"inputSchema"`
		OutputSchema json.RawMessage     `json:"outputSchema"`
		Annotations  *mcp.ToolAnnotation `json:"annotations"`
		Meta         *mcp.Meta           `json:"_meta"`
		Icons        []mcp.Icon          `json:"icons"`
		Execution    *mcp.ToolExecution  `json:"execution"`
	}
	if err := json.Unmarshal(t.Raw, &w); err != nil {
		return mcp.Tool{}, err
	}
	if len(w.InputSchema) == 0 || string(w.InputSchema) == "null" {
		w.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	tool := mcp.Tool{Name: t.Name, Title: w.Title, Description: w.Description, RawInputSchema: w.InputSchema,
		Meta: w.Meta, Icons: w.Icons, Execution: w.Execution}
	if len(w.OutputSchema) > 0 && string(w.OutputSchema) != "null" {
		tool.RawOutputSchema = w.OutputSchema
	}
	if w.Annotations != nil {
		tool.Annotations = *w.Annotations
	}
	return tool, nil
}

// callParams are tools/call's params as they go to the child.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Meta      map[string]any  `json:"_meta,omitempty"`
}

// call forwards one tools/call: the browser first, then the child.
func (p *Proxy) call(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	if err := p.ensure(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return mcp.NewToolResultError(fmt.Sprintf("%s was not called: the browser could not start: %v", name, err)), nil
	}
	params := callParams{Name: name, Arguments: rawArguments(req)}
	if m := req.Params.Meta; m != nil {
		params.Meta = maps.Clone(m.AdditionalFields)
		if m.ProgressToken != nil {
			// Tokens are per client; the child is shared, so it gets one of
			// ours and its progress goes back under the caller's token.
			token, untrack := p.child.TrackProgress(func(n map[string]any) {
				out := maps.Clone(n)
				out["progressToken"] = m.ProgressToken
				_ = p.srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), out)
			})
			defer untrack()
			if params.Meta == nil {
				params.Meta = map[string]any{}
			}
			params.Meta["progressToken"] = token
		}
	}
	raw, err := p.child.Call(ctx, string(mcp.MethodToolsCall), params)
	var rpc *RPCError
	switch {
	case err == nil:
		return decodeResult(raw)
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &rpc):
		return nil, rpc // the child's protocol error, with its message
	default:
		return mcp.NewToolResultError(fmt.Sprintf("%s: the child MCP is not available: %v", name, err)), nil
	}
}

func rawArguments(req mcp.CallToolRequest) json.RawMessage {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments
	}
	if req.Params.Arguments == nil {
		return nil
	}
	b, _ := json.Marshal(req.Params.Arguments)
	return b
}

// rawContent is one content item of a result, kept as the child sent it.
// Embedding a content type makes it an mcp.Content; MarshalJSON makes the
// wire form the child's own bytes, whatever the type (text, image, audio,
// resource, resource_link, or one newer than mcp-go).
type rawContent struct {
	mcp.TextContent
	raw json.RawMessage
}

func (c rawContent) MarshalJSON() ([]byte, error) { return c.raw, nil }

// decodeResult turns the child's raw tools/call result into the value mcp-go
// sends, keeping content items, structuredContent and _meta byte for byte.
func decodeResult(raw json.RawMessage) (*mcp.CallToolResult, error) {
	var r struct {
		Meta              map[string]json.RawMessage `json:"_meta"`
		Content           []json.RawMessage          `json:"content"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
		IsError           bool                       `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("the child MCP answered tools/call with a result that is not an object: %w", err)
	}
	res := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, len(r.Content)), RawStructuredContent: r.StructuredContent}
	for i, c := range r.Content {
		res.Content[i] = rawContent{raw: c}
	}
	if r.Meta != nil {
		res.Meta = &mcp.Meta{AdditionalFields: make(map[string]any, len(r.Meta))}
		for k, v := range r.Meta {
			res.Meta.AdditionalFields[k] = v
		}
	}
	return res, nil
}

// forward passes the child's notifications on: log messages to every
// session whose level lets them through; the rest is noted.
func (p *Proxy) forward(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationMessage):
		level, _ := n.Params.AdditionalFields["level"].(string)
		p.sessions.Range(func(_, v any) bool {
			s := v.(server.ClientSession)
			if sl, ok := s.(server.SessionWithLogging); ok && s.Initialized() && mcp.LoggingLevel(level).ShouldSendTo(sl.GetLogLevel()) {
				_ = p.srv.SendNotificationToSpecificClient(s.SessionID(), n.Method, n.Params.AdditionalFields)
			}
			return true
		})
	case string(mcp.MethodNotificationToolsListChanged):
		p.child.log.Info("the child MCP says its tool list changed; the coordinator keeps serving the list it started with (MCP hosts do not reliably reload it)")
	default:
		p.child.log.Debug("notification from the child MCP not passed on", "method", n.Method)
	}
}
