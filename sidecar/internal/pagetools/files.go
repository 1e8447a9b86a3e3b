package pagetools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File fields. A form's <input type=file> is a parameter that takes local
// files by path, as Playwright MCP's browser_file_upload does: the agent
// names the files, never the page, and only files inside the workspace
// (Files.Roots) are attached unless Files.Any (--allow-unrestricted-file-
// access). The engine attaches them with DOM.setFileInputFiles before the
// form is filled and submitted; a form that would send them to another
// origin than the page's is refused unless the call allows it, as for a
// password. What a hostile page can do is ask, in its labels, for a file:
// it cannot name one, and it cannot reach outside the workspace.

// Files says which local files a file field may attach.
type Files struct {
	// Roots are the folders files may come from (the workspace); a
	// relative path is taken in the first. None, and not Any: file fields
	// are no parameters.
	Roots []string
	// Any lets any file be attached.
	Any bool
	// Hint ends a refusal of a file outside Roots: how to allow it.
	Hint string
}

func (f Files) enabled() bool { return len(f.Roots) > 0 || f.Any }

// resolve is the real path of the file p names, checked against f.
func (f Files) resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("is empty: give the path of a file")
	}
	if !filepath.IsAbs(p) {
		if len(f.Roots) == 0 {
			return "", fmt.Errorf("%q is not an absolute path", p)
		}
		p = filepath.Join(f.Roots[0], p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("names no file: %s", filepath.Clean(p))
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", filepath.Clean(p))
	}
	if f.Any {
		return real, nil
	}
	for _, root := range f.Roots {
		r, err := filepath.EvalSymlinks(root)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(r, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return real, nil
		}
	}
	msg := fmt.Sprintf("%s is outside the workspace (%s): only files inside it are attached", filepath.Clean(p), strings.Join(f.Roots, ", "))
	if f.Hint != "" {
		msg += "; " + f.Hint
	}
	return "", errors.New(msg)
}

// fileArgs are the files of each file property of ref given in args,
// resolved and checked; nil when there are none.
func (e *Engine) fileArgs(ref *toolRef, args map[string]any) (map[string][]string, error) {
	var out map[string][]string
	for _, p := range propertiesOf(ref) {
		if !p.Schema.file {
			continue
		}
		v, ok := args[p.Name]
		if !ok || v == nil {
			continue
		}
		var paths []string
		switch x := v.(type) {
		case string:
			paths = []string{x}
		case []any:
			for _, s := range x {
				paths = append(paths, fmt.Sprint(s))
			}
		}
		for i, path := range paths {
			real, err := e.cfg.Files.resolve(path)
			if err != nil {
				return nil, fmt.Errorf("argument %q: %s; nothing was done", p.Name, err.Error())
			}
			paths[i] = real
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[p.Name] = paths
	}
	return out, nil
}

func propertiesOf(ref *toolRef) []Property {
	if ref.schema == nil {
		return nil
	}
	return ref.schema.Properties
}

// attachFiles puts files into the form's file fields, as a person choosing
// them in the browser's file chooser does (input and change events).
func (e *Engine) attachFiles(ctx context.Context, doc *document, ref *toolRef, files map[string][]string) error {
	for prop, paths := range files {
		res, err := e.rpc(ctx, "Runtime.callFunctionOn", map[string]any{
			"functionDeclaration": "function(g, i, f) { return globalThis." + scriptKey + ".fileInput(g, i, f); }",
			"executionContextId":  doc.ctxID,
			"arguments":           []map[string]any{{"value": ref.gen}, {"value": ref.id}, {"value": ref.fields[prop]}},
		})
		if err != nil {
			return fmt.Errorf("find the file field %q: %w", prop, err)
		}
		var out struct {
			Result struct {
				ObjectID string `json:"objectId"`
			} `json:"result"`
		}
		if json.Unmarshal(res, &out) != nil || out.Result.ObjectID == "" {
			return &Error{Kind: ErrNavigatedAway, Msg: fmt.Sprintf("%s: the page's file field %q is gone; nothing was done", ref.name, prop)}
		}
		_, err = e.rpc(ctx, "DOM.setFileInputFiles", map[string]any{"files": paths, "objectId": out.Result.ObjectID})
		_, _ = e.rpc(ctx, "Runtime.releaseObject", map[string]any{"objectId": out.Result.ObjectID})
		if err != nil {
			return fmt.Errorf("attach the files to %q: %w", prop, err)
		}
	}
	return nil
}
