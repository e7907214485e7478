package owner

import "testing"

func TestStatFields(t *testing.T) {
	line := []byte("1234 (a b) c)) S 1 1230 1230 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0")
	pgrp, ticks, ok := statFields(line)
	if !ok || pgrp != 1230 || ticks != 300 {
		t.Errorf("got %d %d %v", pgrp, ticks, ok)
	}
}
