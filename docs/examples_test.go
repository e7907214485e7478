package docs

import (
	"os"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// tomlBlocks returns the ```toml blocks of a page whose first table is
// [[site]]: the sites.toml examples a reader copies.
func tomlBlocks(text string) []string {
	var blocks []string
	for _, part := range strings.Split(text, "```toml\n")[1:] {
		block, _, ok := strings.Cut(part, "\n```")
		if ok && strings.HasPrefix(strings.TrimSpace(block), "[[site]]") {
			blocks = append(blocks, block)
		}
	}
	return blocks
}

// TestReadmeSitesExamples parses the README's sites.toml examples (the
// ten-line cluster, the Slurm site) as gridtui would, so that an example a
// reader copies is never refused.
func TestReadmeSitesExamples(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("docs: read README.md: %v", err)
	}
	blocks := tomlBlocks(string(data))
	if len(blocks) < 2 {
		t.Fatalf("docs: README.md has %d sites.toml examples, want the cluster's and Slurm's", len(blocks))
	}
	for i, b := range blocks {
		inv, err := inventory.Parse("README.md example", []byte(b))
		if err != nil {
			t.Errorf("docs: README.md sites.toml example %d: %v\n%s", i+1, err, b)
			continue
		}
		if len(inv.Sites) != 1 {
			t.Errorf("docs: README.md sites.toml example %d: %d sites, want 1", i+1, len(inv.Sites))
		}
	}
}
