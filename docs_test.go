package kuis_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// What RELIABILITY.md cites as proof: a test, fuzz target, benchmark or
// example by its function's name, and a test file by its name.
var (
	citedFunc = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark|Example)[A-Z_][A-Za-z0-9_]*`)
	citedFile = regexp.MustCompile(`\b[A-Za-z0-9_.-]+_test\.go\b`)
)

// TestReliabilityCitesExistingTests: every test, fuzz target, benchmark,
// example and test file that RELIABILITY.md names is declared in a _test.go
// file of this module, so that the page never points at a proof that is gone.
func TestReliabilityCitesExistingTests(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("RELIABILITY.md")
	if err != nil {
		t.Fatal(err)
	}
	funcs, files := testDecls(t, ".")
	if !funcs["TestReliabilityCitesExistingTests"] {
		t.Fatalf("parsed %d test files and did not find this test: wrong directory?", len(files))
	}
	for _, name := range distinct(citedFunc.FindAllString(string(doc), -1)) {
		if !funcs[name] {
			t.Errorf("RELIABILITY.md cites %s, which no _test.go file of the module declares", name)
		}
	}
	for _, name := range distinct(citedFile.FindAllString(string(doc), -1)) {
		if !files[name] {
			t.Errorf("RELIABILITY.md cites %s, which is no _test.go file of the module", name)
		}
	}
}

// testDecls parses every _test.go file of the module under root and returns
// the names of the functions they declare at top level, and the files' names.
// Directories with a go.mod of their own (bench/ and the live board's browser
// test) are other modules, and testdata/ and hidden directories hold no Go
// the module builds: all are skipped.
func testDecls(t *testing.T, root string) (funcs, files map[string]bool) {
	t.Helper()
	funcs, files = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files[d.Name()] = true
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				funcs[fn.Name.Name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return funcs, files
}

// distinct is names sorted, each once.
func distinct(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}
