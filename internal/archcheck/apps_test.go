package archcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// neutral are the trees whose code names no application: the engine,
// prediction and the console handle every application alike, through
// apps/gridapp's interfaces (issue "every application equal").
var neutral = []string{"engine", "predict", "ui"}

// notOnlyApps are applications whose name is also another thing's, which
// the neutral code names for every application alike: the BSP model
// (package bsp, BSP prediction) and the standard library's os/exec.
var notOnlyApps = map[string]bool{"bsp": true, "exec": true}

// testHelpers are packages of the neutral trees that only tests import:
// their fixtures run some application, as tests may.
var testHelpers = map[string]bool{filepath.Join("ui", "internal", "uitest"): true}

// TestNoApplicationNamed fails when the code (not the comments, not the
// tests nor their helpers) of engine/, predict/ or ui/ names an
// application of apps/ as an identifier or in a string: a branch on one
// application, or a default that is one. Comments may cite the reference
// application; tests may run it.
func TestNoApplicationNamed(t *testing.T) {
	root := filepath.Join("..", "..")
	ents, err := os.ReadDir(filepath.Join(root, "apps"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "gridapp" && e.Name() != "structured" && !notOnlyApps[e.Name()] {
			names = append(names, e.Name())
		}
	}
	if len(names) < 4 {
		t.Fatalf("apps/ lists %v: scan broken", names)
	}
	word := regexp.MustCompile(`(?i)\b(` + strings.Join(names, "|") + `)\b`)
	files := 0
	for _, dir := range neutral {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if rel, _ := filepath.Rel(root, path); d.IsDir() && testHelpers[rel] {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			files++
			for _, hit := range namedApps(t, path, word) {
				t.Error(hit)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 100 {
		t.Fatalf("read %d files of %v: scan broken", files, neutral)
	}
}

// camelWords finds where an identifier's words meet (a lower-case letter or
// digit, then an upper-case one).
var camelWords = regexp.MustCompile(`([\p{Ll}\d])(\p{Lu})`)

// namedApps returns "file:line: text" of each identifier or string literal
// of the Go file at path (imports left out; an identifier's words apart:
// obstacleApp names the obstacle) that word matches.
func namedApps(t *testing.T, path string, word *regexp.Regexp) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[*ast.BasicLit]bool{}
	for _, imp := range f.Imports {
		imports[imp.Path] = true
	}
	var hits []string
	ast.Inspect(f, func(n ast.Node) bool {
		var text, words string
		switch n := n.(type) {
		case *ast.Ident:
			text, words = n.Name, camelWords.ReplaceAllString(n.Name, "$1 $2") // obstacleApp: "obstacle App"
		case *ast.BasicLit:
			if n.Kind == token.STRING && !imports[n] {
				text, words = n.Value, n.Value
			}
		}
		if m := word.FindString(words); m != "" {
			hits = append(hits, fset.Position(n.Pos()).String()+": "+text+" names application "+strings.ToLower(m))
		}
		return true
	})
	return hits
}
