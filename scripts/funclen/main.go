// Command funclen lists the Go functions longer than a limit, tests excluded:
// `npm run lint` keeps every production function of the sidecar at 80 lines
// or fewer (issue 18), so each one reads top-down on one screen.
//
// Usage: go run ./scripts/funclen [-max 80] DIR...
//
// A function's length runs from its `func` keyword to its closing brace,
// both counted; function literals count toward the function around them.
// Files ending in _test.go are skipped, and so are generated files.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	limit := flag.Int("max", 80, "the most lines a function may have")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: funclen [-max N] DIR...")
		os.Exit(2)
	}
	var long []function
	for _, dir := range flag.Args() {
		found, err := longFunctions(dir, *limit)
		if err != nil {
			fmt.Fprintln(os.Stderr, "funclen:", err)
			os.Exit(2)
		}
		long = append(long, found...)
	}
	if len(long) == 0 {
		return
	}
	sort.Slice(long, func(i, j int) bool { return long[i].lines > long[j].lines })
	for _, f := range long {
		fmt.Printf("%s:%d: %s is %d lines (at most %d): split it into steps that read top-down\n", f.file, f.line, f.name, f.lines, *limit)
	}
	os.Exit(1)
}

// function is one function declaration over the limit.
type function struct {
	file  string
	line  int
	name  string
	lines int
}

// longFunctions walks dir for Go files other than tests and returns the
// functions in them longer than limit lines.
func longFunctions(dir string, limit int) ([]function, error) {
	var long []function
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != dir && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(file) {
			return nil
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()), fset.Position(fn.End())
			if n := end.Line - start.Line + 1; n > limit {
				long = append(long, function{file: start.Filename, line: start.Line, name: funcName(fn), lines: n})
			}
		}
		return nil
	})
	return long, err
}

// funcName is fn's name as a reader looks it up: Recv.Method or Func.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr: // a generic receiver: T[P]
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
