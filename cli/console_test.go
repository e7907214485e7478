package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/gridtui/gridtui/deploy/inventory"
)

// TestConsoleErrorKeepsInventoryError: when the console cannot start (no
// terminal), the inventory error it would have shown on screen is part of
// the error printed instead, with its position in the file.
func TestConsoleErrorKeepsInventoryError(t *testing.T) {
	_, invErr := inventory.Parse("sites.toml", []byte("[[site]]\nname = \"s\"\n  [[site.cluster]]\n  name = \"c\"\n  hosts = \"a\"\n  cores = 0\n"))
	if invErr == nil {
		t.Fatal("the parser accepted cores = 0")
	}
	noTTY := errors.New("bubbletea: could not open TTY")
	cases := []struct {
		name   string
		invErr error
		want   []string
	}{
		{name: "bad_inventory", invErr: invErr, want: []string{"gridtui console: bubbletea: could not open TTY", "sites.toml:6:3", "cores must be at least 1"}},
		{name: "good_inventory", want: []string{"gridtui console: bubbletea: could not open TTY"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := consoleError(noTTY, tc.invErr)
			if !errors.Is(err, noTTY) {
				t.Errorf("error %v does not wrap the console's", err)
			}
			var ce *inventory.ConfigError
			if got := errors.As(err, &ce); got != (tc.invErr != nil) {
				t.Errorf("errors.As ConfigError = %v, want %v", got, tc.invErr != nil)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
