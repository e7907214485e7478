package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/deploy/sshclient"
	"github.com/gridtui/gridtui/internal/jsonout"
)

// deployFlags are the flags of `gridtui deploy`.
type deployFlags struct {
	acceptNew bool
	width     int
	stop      bool
	clean     bool
	start     bool
	binary    string
	ship      []string
	dist      string
	timeout   time.Duration
	plain     bool
	noRelay   bool
	json      bool
}

// deployView is `gridtui deploy --json`: what was done, to which hosts,
// with what outcome, and the hellos of the workers --start started.
type deployView struct {
	Action    string `json:"action"`
	Inventory string `json:"inventory"`
	Elapsed   time.Duration
	Hosts     []deploy.Result
	Workers   []deploy.Hello `json:"workers,omitempty"`
}

func newDeployCmd(g *globalFlags) *cobra.Command {
	f := &deployFlags{}
	cmd := &cobra.Command{
		Use:   "deploy [host|cluster|site|node set...]",
		Short: "Upload the worker binary to the grid's hosts (or stop workers, clean up)",
		Long: "deploy copies this binary (or dist/gridtui-OS-ARCH for other platforms) to the work\n" +
			"directory of every SSH host of the inventory, in parallel, skipping hosts that already\n" +
			"have it; a Slurm site's nodes get it in the work directory they share with the site's\n" +
			"frontend (with no frontend: in this host's home). Local hosts need no upload. --ship\n" +
			"copies files beside the worker on every host (a local node: its own work directory).\n" +
			"--start also starts a worker per host, prints its\n" +
			"hello and stops it again (a smoke test); --stop stops running workers and --clean also\n" +
			"removes the work directories.",
		Example: "  gridtui deploy                  # upload to every SSH host of ./sites.toml\n" +
			"  gridtui deploy --start alpha    # upload to cluster alpha, smoke-test one worker per host\n" +
			"  gridtui deploy --stop node-3    # stop the workers left on node-3\n" +
			"  gridtui deploy --ship examples/c-poisson/poisson   # then: --param program=poisson",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDeploy(cmd, g, f, args)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.plain, "no-compress", false, "ship the binary uncompressed over SFTP (default: gzip through an exec channel when the host has gzip)")
	fl.BoolVar(&f.noRelay, "no-relay", false, "upload from the console to every host (default: one host per site gets the binary and relays it to the others over the site's network)")
	fl.BoolVar(&f.acceptNew, "accept-new", false, "trust and record unknown SSH host keys (changed keys are always refused)")
	fl.IntVar(&f.width, "width", deploy.DefaultWidth, "hosts worked on at the same time")
	fl.BoolVar(&f.stop, "stop", false, "stop the workers running on the hosts")
	fl.BoolVar(&f.clean, "clean", false, "stop the workers and remove the work directories")
	fl.BoolVar(&f.start, "start", false, "after deploying, start one worker per host, print its hello, stop it")
	fl.StringVar(&f.binary, "binary", "", "worker binary to upload instead of this one")
	fl.StringArrayVar(&f.ship, "ship", nil, "also copy FILE beside the worker on every host (an app = \"exec\" program and its files; the job names it by its base name); repeatable")
	fl.StringVar(&f.dist, "dist", "dist", "directory of cross-built binaries (make dist)")
	fl.BoolVar(&f.json, "json", false, "print the outcome per host (and the hellos of --start) as JSON; progress goes to stderr")
	fl.DurationVar(&f.timeout, "connect-timeout", 0, "SSH connect timeout per hop (default: the inventory's, else 10s)")
	return cmd
}

// check refuses contradictory flags: --start with --stop or --clean.
func (f *deployFlags) check() error {
	if !f.start || !(f.stop || f.clean) {
		return nil
	}
	other := "--stop"
	if f.clean {
		other = "--clean"
	}
	return &exitError{code: 2, err: fmt.Errorf("gridtui deploy: --start and %s contradict each other: --start deploys and smoke-tests workers, %s stops them; pass one", other, other)}
}

func runDeploy(cmd *cobra.Command, g *globalFlags, f *deployFlags, args []string) error {
	if err := f.check(); err != nil {
		return err
	}
	inv, err := inventory.Load(g.sites)
	if err != nil {
		return err
	}
	hosts, err := inventory.SelectHosts(inv, args)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	out := cmd.OutOrStdout()
	if f.json {
		out = cmd.ErrOrStderr()
	}
	tty := isTerminal(out)
	progress := deploy.NewProgress(out, hosts, tty)
	opt := deploy.Options{Width: f.width, AcceptNew: f.acceptNew, Binary: f.binary, Dist: f.dist,
		ConnectTimeout: f.timeout, Events: progress.Event, NoCompress: f.plain, NoRelay: f.noRelay, Ship: f.ship}
	if term.IsTerminal(os.Stdin.Fd()) {
		opt.Passphrase = func(host, keyfile string) ([]byte, error) {
			return askPassphrase(progress, host, keyfile)
		}
		opt.Challenge = func(host, instruction string, questions []string, echo []bool) ([]string, error) {
			return askChallenge(progress, host, instruction, questions, echo)
		}
		if !f.acceptNew {
			opt.ConfirmHostKey = func(host, fp string) bool { return confirmHostKey(progress, host, fp) }
		}
	}
	pool, err := sshclient.NewPool(inv, opt.SSH()) // one connection per host for deploy and --start
	if err != nil {
		return err
	}
	defer pool.Close()
	opt.Pool = pool
	action, verb := deploy.Deploy, "deploy"
	switch {
	case f.clean:
		action, verb = deploy.Clean, "clean"
	case f.stop:
		action, verb = deploy.Stop, "stop"
	}
	noun := "hosts"
	if len(hosts) == 1 {
		noun = "host"
	}
	if inv.Notice != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), "note:", inv.Notice)
	}
	fmt.Fprintf(out, "%s: %d %s from %s\n", verb, len(hosts), noun, inv.Source)
	start := time.Now()
	sum, err := action(ctx, inv, hosts, opt)
	progress.Flush()
	deploy.WriteSummary(out, sum, time.Since(start))
	view := deployView{Action: verb, Inventory: inv.Source, Elapsed: time.Since(start), Hosts: sum.Results}
	if err == nil && f.start && verb == "deploy" {
		view.Workers, err = smokeStart(ctx, out, inv, hosts, opt)
	} else if err != nil {
		err = &exitError{code: 1, err: commandError("gridtui "+verb, err)}
	}
	if f.json {
		if jerr := jsonout.Write(cmd.OutOrStdout(), view); jerr != nil && err == nil {
			err = jerr
		}
	}
	return err
}

// smokeStart starts a worker on every host, prints the hellos and stops them.
func smokeStart(ctx context.Context, out io.Writer, inv *inventory.Inventory, hosts []inventory.Host, opt deploy.Options) ([]deploy.Hello, error) {
	boot := deploy.BootFor(deploy.NewRunSecret())
	fmt.Fprintln(out, "\nstarting workers:")
	opt.Events = deploy.NewProgress(out, hosts, false).Event
	ws, err := deploy.StartWorkers(ctx, inv, hosts, boot, opt)
	if err != nil {
		return nil, &exitError{code: 1, err: commandError("gridtui deploy --start", err)}
	}
	var hellos []deploy.Hello
	for _, w := range ws {
		h := w.Hello
		hellos = append(hellos, h)
		cores := fmt.Sprintf("%d cores", h.Cores)
		if h.Cores == 1 {
			cores = "1 core"
		}
		fmt.Fprintf(out, "  %s: pid %d on %s (%s/%s, %s, version %s) listening on %s\n",
			h.Node, h.PID, h.Host, h.OS, h.Arch, cores, h.Version, strings.Join(h.Listen, " "))
	}
	return hellos, stopWorkers(ws)
}

// stopWorkers stops every worker, all at once, and reports those that did
// not stop, each naming its node and host: one that does not stop never
// keeps the others running.
func stopWorkers(ws []*deploy.Worker) error {
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() { errs[i] = w.Stop(sctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("gridtui deploy --start: %w", err)}
	}
	return nil
}

// commandError prefixes the first line of a deploy error (the summary above
// already lists every failure) with the command, dropping the error's own
// "deploy: " prefix so that the message does not read "deploy: deploy:".
// errors.Is and errors.As still see err.
func commandError(prefix string, err error) error {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i > 0 {
		s = strings.TrimSuffix(s[:i], ":")
	}
	return &wrappedError{msg: prefix + ": " + strings.TrimPrefix(s, "deploy: "), err: err}
}

// wrappedError is an error with its own text that unwraps to err.
type wrappedError struct {
	msg string
	err error
}

func (e *wrappedError) Error() string { return e.msg }
func (e *wrappedError) Unwrap() error { return e.err }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// askPassphrase reads a key's passphrase from the terminal, without echo.
func askPassphrase(p *deploy.Progress, host, keyfile string) (pass []byte, err error) {
	p.Prompt(func() {
		fmt.Fprintf(os.Stderr, "passphrase for %s (connecting to %s): ", keyfile, host)
		pass, err = term.ReadPassword(os.Stdin.Fd())
		fmt.Fprintln(os.Stderr)
	})
	return pass, err
}

// askChallenge answers a keyboard-interactive challenge (a one-time code) on
// the terminal; answers that must not be echoed are read without echo.
func askChallenge(p *deploy.Progress, host, instruction string, questions []string, echo []bool) (answers []string, err error) {
	p.Prompt(func() {
		if instruction != "" {
			fmt.Fprintf(os.Stderr, "%s (%s)\n", instruction, host)
		}
		in := bufio.NewReader(os.Stdin)
		for i, q := range questions {
			fmt.Fprintf(os.Stderr, "%s", q)
			var a string
			if i < len(echo) && echo[i] {
				a, err = in.ReadString('\n')
			} else {
				var b []byte
				b, err = term.ReadPassword(os.Stdin.Fd())
				a = string(b)
				fmt.Fprintln(os.Stderr)
			}
			if err != nil {
				err = fmt.Errorf("gridtui deploy: answer for %s: %w", host, err)
				return
			}
			answers = append(answers, strings.TrimRight(a, "\r\n"))
		}
	})
	return answers, err
}

// confirmHostKey asks whether to trust an unknown host key.
func confirmHostKey(p *deploy.Progress, host, fp string) (ok bool) {
	p.Prompt(func() {
		fmt.Fprintf(os.Stderr, "the host key of %s is unknown: %s\ntrust it and record it in known_hosts? [y/N] ", host, fp)
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		ans := strings.ToLower(strings.TrimSpace(line))
		ok = ans == "y" || ans == "yes"
	})
	return ok
}
