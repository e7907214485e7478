package chart

import (
	"strings"
	"testing"
	"time"
)

func TestSparklineAndChart(t *testing.T) {
	if got := Sparkline([]float64{1e-1, 1e-3, 1e-5}, 5); got != "  █▅▁" {
		t.Errorf("sparkline = %q, want %q (log scale, right-aligned)", got, "  █▅▁")
	}
	hist := []Sample{{At: 0, Sigma: 1e-2}, {At: time.Second, Sigma: 1e-5}, {At: 2 * time.Second, Sigma: 1e-8}}
	lines := Residual(hist, 17, 3)
	if !strings.HasPrefix(lines[0], "  1e-2┤█") || !strings.HasPrefix(lines[2], "  1e-8┤") {
		t.Errorf("chart axis/first column wrong:\n%s", strings.Join(lines, "\n"))
	}
	if strings.HasSuffix(lines[0], "█") || !strings.HasSuffix(lines[2], "▁") {
		t.Errorf("last column should be lowest (σ fell):\n%s", strings.Join(lines, "\n"))
	}
}
