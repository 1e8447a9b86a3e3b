package mcpconfig

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/browser-coordinator/browser-coordinator/sidecar/internal/atomicfile"
)

// Result is what Install did (with dry run: would do).
type Result struct {
	Target
	Content []byte // the file as written (or as it would be, with dry run)
	Changed bool   // the file's content changed
	// Found are the entries that ran browser-coordinator there before, judged.
	Found []Found
	// UpToDate: before, every entry install writes was there as it writes
	// it, and no other of its kind.
	UpToDate bool
	Wrote    []string  // the entries set (those not current already)
	Removed  []Removed // the entries taken out
}

// Removed is one entry taken out, and the folder whose it was (Local scope).
type Removed struct {
	Name      string `json:"name"`
	Workspace string `json:"workspace,omitempty"`
}

// Install brings the host's config file to what o asks: the entries merged
// in (and, with Prune, its other entries of this kind taken out), or with
// Remove, its entries taken out. With dryRun it only computes the result.
// A file that is not valid JSON(C) is left alone.
func Install(o Options, dryRun bool) (Result, error) {
	o = o.withDefaults()
	t, err := Plan(o)
	if err != nil {
		return Result{}, err
	}
	r := Result{Target: t}
	old, mode, err := readConfig(t.Path, claudeCodesOwn(o))
	if err != nil {
		return r, err
	}
	var doc []byte
	if o.Remove {
		doc, err = removeOurs(old, o, &r)
	} else {
		doc, err = mergeOurs(old, o, &r)
	}
	if err != nil {
		return r, &FileError{File: t.Path, Err: err}
	}
	r.Content, r.Changed = doc, !bytes.Equal(old, doc)
	if dryRun || !r.Changed {
		return r, nil
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o755); err != nil {
		return r, err
	}
	if err := atomicfile.Write(t.Path, doc, mode); err != nil {
		return r, fmt.Errorf("write %s: %w", t.Path, err)
	}
	return r, nil
}

// FileError is a config file install cannot edit: it does not parse, or
// is not laid out as a config file is. Nothing was written.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: %v; fix the file (or move it away) and run install again — nothing was written", e.File, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// claudeCodesOwn: the file is Claude Code's own state (~/.claude.json),
// private to the user.
func claudeCodesOwn(o Options) bool {
	return o.Host == ClaudeCode && (o.Scope == User || o.Scope == Local)
}

// readConfig reads a config file ("" when there is none) and the mode to
// write it with: its own, else 0600 for a private one, else 0644.
func readConfig(path string, private bool) ([]byte, os.FileMode, error) {
	mode := os.FileMode(0o644)
	if private {
		mode = 0o600
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, mode, fmt.Errorf("read %s: %w", path, err)
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return old, mode, nil
}

// ours are the members at path that run browser-coordinator.
func ours(doc []byte, path []string) ([]Member, []server, error) {
	members, err := Members(doc, path)
	if err != nil {
		return nil, nil, err
	}
	var found []Member
	var entries []server
	for _, m := range members {
		if s, ok := decode(m.Raw); ok && runsCoordinator(s) {
			found, entries = append(found, m), append(entries, s)
		}
	}
	return found, entries, nil
}

// mergeOurs judges the entries there and sets the ones that are not
// current; with Prune it takes out the others of this kind.
func mergeOurs(doc []byte, o Options, r *Result) ([]byte, error) {
	members, entries, err := ours(doc, r.Key)
	if err != nil {
		return nil, err
	}
	wanted := map[string]server{}
	for _, e := range r.Entries {
		wanted[e.Name] = e.Value.(server)
	}
	exists := o.Exists
	if exists == nil {
		exists = func(p string) bool { _, err := os.Stat(p); return err == nil }
	}
	var extra []string
	current := map[string]bool{}
	for i, m := range members {
		w, ok := wanted[m.Name]
		f := Found{Name: m.Name, Entry: m.Raw}
		if ok {
			f.Status, f.Why = judgeEntry(o.Scope, entries[i], &w, o.Home, exists)
		} else {
			f.Status, f.Why = judgeEntry(o.Scope, entries[i], nil, o.Home, exists)
			extra = append(extra, m.Name)
		}
		current[m.Name] = f.Status == Current
		r.Found = append(r.Found, f)
	}
	var set []Entry
	for _, e := range r.Entries {
		if !current[e.Name] {
			set = append(set, e)
			r.Wrote = append(r.Wrote, e.Name)
		}
	}
	r.UpToDate = len(set) == 0 && len(extra) == 0
	if doc, err = Merge(doc, r.Key, set); err != nil || !o.Prune || len(extra) == 0 {
		return doc, err
	}
	for _, name := range extra {
		r.Removed = append(r.Removed, Removed{Name: name, Workspace: o.Workspace})
	}
	return Remove(doc, r.Key, extra)
}

// removeOurs takes out the entries of this kind (with RemoveRunning, those
// that run that file), at the location or, with AllWorkspaces, in every
// folder of Claude Code's file.
func removeOurs(doc []byte, o Options, r *Result) ([]byte, error) {
	folders := []string{o.Workspace}
	if o.AllWorkspaces {
		if o.Scope != Local {
			return nil, errors.New("every workspace: only Claude Code's local scope has workspaces")
		}
		projects, err := Members(doc, []string{"projects"})
		if err != nil {
			return nil, err
		}
		folders = folders[:0]
		for _, p := range projects {
			folders = append(folders, p.Name)
		}
	}
	for _, folder := range folders {
		key := r.Key
		if o.Scope == Local {
			key = []string{"projects", folder, "mcpServers"}
		}
		members, entries, err := ours(doc, key)
		if err != nil {
			return nil, err
		}
		var names []string
		for i, m := range members {
			if o.RemoveRunning == "" || samePath(entries[i].Command, o.RemoveRunning) {
				names = append(names, m.Name)
				r.Removed = append(r.Removed, Removed{Name: m.Name, Workspace: folder})
			}
		}
		if doc, err = Remove(doc, key, names); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

// samePath: one file, by name or through links.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
