package common

import (
	"context"
	"io"
	"log/slog"
	"strconv"
)

// Common is the value handed to every view (the soft-serve pattern): the
// terminal size, the styles, the key map, the logger and the console's
// context. Views read it; only the root model changes it.
type Common struct {
	Width, Height int
	Styles        *Styles
	Keys          KeyMap
	Logger        *slog.Logger
	Ctx           context.Context
}

// NewCommon returns a Common for a terminal of the given size, with the
// default styles and keys. A nil logger discards; a nil ctx is Background.
func NewCommon(ctx context.Context, width, height int, logger *slog.Logger) *Common {
	if ctx == nil {
		ctx = context.Background()
	}
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Common{
		Width:  width,
		Height: height,
		Styles: DefaultStyles(),
		Keys:   DefaultKeyMap(),
		Logger: logger,
		Ctx:    ctx,
	}
}

// BodyHeight is the number of lines a view may use: the terminal minus the
// tab bar, the status line and the help bar.
func (c *Common) BodyHeight() int {
	h := c.Height - 3
	if h < 1 {
		h = 1
	}
	return h
}

// Count reads "1 worker", "2 workers": n and the noun in its number.
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
