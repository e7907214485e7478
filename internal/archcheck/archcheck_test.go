package archcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/gridtui/gridtui/"

// ownModule lists the table's packages that `go list ./...` does not see:
// modules of their own.
var ownModule = map[string]bool{"examples/rod": true, "examples/laplace": true}

// row is one line of the import table: its packages and what they may import
// ("apps/…" allows every package under apps/).
type row struct {
	pkgs    []string
	imports []string
}

var (
	backticked  = regexp.MustCompile("`([^`]+)`")
	parentheses = regexp.MustCompile(`\([^)]*\)`)
)

// readTable parses the import table of docs/ARCHITECTURE.md.
func readTable(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "| package | imports (of gridtui's) |")
	if start < 0 {
		t.Fatal("docs/ARCHITECTURE.md: no import table")
	}
	var rows []row
	for _, line := range strings.Split(text[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 2 {
			t.Fatalf("docs/ARCHITECTURE.md: table row %q: want two cells", line)
		}
		var r row
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			r.pkgs = append(r.pkgs, m[1])
		}
		if imps := strings.TrimSpace(parentheses.ReplaceAllString(cells[1], "")); imps != "nothing" {
			for _, p := range strings.Split(imps, ",") {
				r.imports = append(r.imports, strings.TrimSpace(p))
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// goList returns each package of the module with the module's packages it
// imports, paths relative to the module.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		name, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		var imps []string
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				imps = append(imps, rel)
			}
		}
		pkgs[name] = imps
	}
	return pkgs
}

func allows(pattern, pkg string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "…"); ok {
		return strings.HasPrefix(pkg, prefix)
	}
	return pattern == pkg
}

// TestImportTable checks docs/ARCHITECTURE.md's import table: every package
// of the module is in it once, imports nothing the table does not list for
// it and only packages further down; each package named as an import is
// imported by some package of its row.
func TestImportTable(t *testing.T) {
	rows := readTable(t)
	pkgs := goList(t)
	rowOf := map[string]int{}
	for i, r := range rows {
		for _, p := range r.pkgs {
			if _, dup := rowOf[p]; dup {
				t.Errorf("ARCHITECTURE.md: %s is in two rows", p)
			}
			rowOf[p] = i
			if _, ok := pkgs[p]; !ok && !ownModule[p] {
				t.Errorf("ARCHITECTURE.md names %s, which go list does not know", p)
			}
		}
	}
	for p, imps := range pkgs {
		i, ok := rowOf[p]
		if !ok {
			t.Errorf("ARCHITECTURE.md: package %s is not in the import table", p)
			continue
		}
		for _, imp := range imps {
			if !slices.ContainsFunc(rows[i].imports, func(pat string) bool { return allows(pat, imp) }) {
				t.Errorf("ARCHITECTURE.md: %s imports %s, which its row does not list", p, imp)
			}
			if j, ok := rowOf[imp]; ok && j <= i {
				t.Errorf("ARCHITECTURE.md: %s imports %s, which is not further down the table", p, imp)
			}
		}
	}
	for i, r := range rows {
		for _, pat := range r.imports {
			used := false
			for _, p := range r.pkgs {
				used = used || slices.ContainsFunc(pkgs[p], func(imp string) bool { return allows(pat, imp) })
			}
			if !used && !slices.ContainsFunc(r.pkgs, func(p string) bool { return ownModule[p] }) {
				t.Errorf("ARCHITECTURE.md: row %d (%s) lists %s, which none of them imports", i+1, strings.Join(r.pkgs, ", "), pat)
			}
		}
	}
}
