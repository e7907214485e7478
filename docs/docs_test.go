package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pages lists the Markdown files whose links are checked: README.md and
// BENCHMARKS.md at the repository's root and every .md file under docs/.
func pages(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md", "../BENCHMARKS.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("docs: walk docs/: %v", err)
	}
	return files
}

// link is one inline Markdown link of a page.
type link struct {
	line   int
	target string
}

var (
	linkRE     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	headingRE  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLinkRE   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// scan returns the inline links of a page (outside fenced code blocks and
// code spans) and the anchors of its headings as GitHub makes them.
func scan(text string) (links []link, anchors map[string]bool) {
	anchors = map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			slug := slugify(m[1])
			if n := seen[slug]; n > 0 {
				anchors[fmt.Sprintf("%s-%d", slug, n)] = true
			} else {
				anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range linkRE.FindAllStringSubmatch(codeSpanRE.ReplaceAllString(line, ""), -1) {
			links = append(links, link{line: i + 1, target: m[1]})
		}
	}
	return links, anchors
}

// slugify is GitHub's anchor of a heading: its text without Markdown,
// lower-cased, every character that is not a letter, digit, mark, '_', '-'
// or space dropped, spaces turned into '-'.
func slugify(heading string) string {
	heading = mdLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestRelativeLinks fails on a relative link of a page whose file or
// directory does not exist, or whose #anchor names no heading of its target.
func TestRelativeLinks(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	readAnchors := func(path string) (map[string]bool, error) {
		if a, ok := anchorsOf[path]; ok {
			return a, nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		_, a := scan(string(data))
		anchorsOf[path] = a
		return a, nil
	}
	checked := 0
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatalf("docs: read %s: %v", page, err)
		}
		links, _ := scan(string(data))
		for _, l := range links {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(l.target, "#")
			target := page
			if path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s:%d: link %q: no such file or directory %s", page, l.line, l.target, target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			anchors, err := readAnchors(target)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", page, l.line, l.target, err)
				continue
			}
			if !anchors[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading with anchor #%s", page, l.line, l.target, target, anchor)
			}
		}
	}
	if checked < 50 {
		t.Errorf("docs: only %d relative links found in %d pages; the scan is broken", checked, len(pages(t)))
	}
}

// TestReadmeCommands keeps the three commands CI and the checks look for in
// README.md, exactly as they are written there.
func TestReadmeCommands(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("docs: read README.md: %v", err)
	}
	for _, cmd := range []string{"go run ./cmd/gridtui", "go run ./cmd/gridtui run", "go test -race ./..."} {
		if !strings.Contains(string(data), cmd) {
			t.Errorf("docs: README.md no longer says %q", cmd)
		}
	}
}

// TestSlugify pins the anchor rule on headings of these pages.
func TestSlugify(t *testing.T) {
	for heading, want := range map[string]string{
		"Deploy across a WAN, relayed once per site (issue 17)":                         "deploy-across-a-wan-relayed-once-per-site-issue-17",
		"SSH: what `ssh` itself would do":                                               "ssh-what-ssh-itself-would-do",
		"2026-11-24, 06:10 UTC: the in-process link (the program is the RMNP endpoint)": "2026-11-24-0610-utc-the-in-process-link-the-program-is-the-rmnp-endpoint",
		"Where the criterion stands after pass 22 (2026-11-25)":                         "where-the-criterion-stands-after-pass-22-2026-11-25",
		"[docs](x.md) and σ": "docs-and-σ",
	} {
		if got := slugify(heading); got != want {
			t.Errorf("slugify(%q) = %q, want %q", heading, got, want)
		}
	}
}
