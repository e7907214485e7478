package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/ui"
)

// runConsole opens the full-screen console. Logs go to a file (GRIDTUI_LOG,
// else $XDG_STATE_HOME/gridtui/console.log), never to the screen.
func runConsole(cmd *cobra.Command, g *globalFlags) error {
	logger, closeLog, err := consoleLogger()
	if err != nil {
		return err
	}
	defer closeLog()
	// Anything logged through the default loggers lands in the file too:
	// nothing may write over the full-screen UI.
	slog.SetDefault(logger)
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM)
	defer stop()
	inv, invErr := inventory.Load(g.sites)
	if invErr != nil {
		logger.Error("inventory", "err", invErr)
	}
	m := ui.New(ui.Config{
		Ctx:          ctx,
		Inventory:    inv,
		InventoryErr: invErr,
		Run:          consoleRunner(),
		Logger:       logger,
	})
	p := tea.NewProgram(m, tea.WithContext(ctx))
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return consoleError(err, invErr)
	}
	return nil
}

// consoleError is the error of a console that could not run (no terminal,
// say). An inventory error the screen would have shown is returned with it,
// so that `gridtui --sites bad.toml` without a terminal still says what is
// wrong with the file.
func consoleError(runErr, invErr error) error {
	err := fmt.Errorf("gridtui console: %w", runErr)
	if invErr != nil {
		return errors.Join(err, invErr)
	}
	return err
}

// consoleRunner is the job runner the console uses.
func consoleRunner() ui.RunFunc { return ui.EngineRun }

func consoleLogger() (*slog.Logger, func(), error) {
	path := os.Getenv("GRIDTUI_LOG")
	if path == "" {
		dir := os.Getenv("XDG_STATE_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return nil, nil, fmt.Errorf("gridtui console: no home directory for the log: %w", err)
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "gridtui", "console.log")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("gridtui console: log directory %s: %w", filepath.Dir(path), err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("gridtui console: open log %s: %w", path, err)
	}
	return slog.New(slog.NewTextHandler(f, nil)), func() { f.Close() }, nil
}
