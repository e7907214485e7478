package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridtui/gridtui/ui/internal/uitest"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/gridtui/gridtui/deploy"
	"github.com/gridtui/gridtui/deploy/inventory"
	"github.com/gridtui/gridtui/engine"
	"github.com/gridtui/gridtui/jobs"
)

// send feeds the root model messages (running the commands they return
// when they are quick action requests).
func send(m Model, msgs ...tea.Msg) Model {
	for _, msg := range msgs {
		next, cmd := m.Update(msg)
		m = next.(Model)
		_ = cmd
	}
	return m
}

func keys(ks ...string) []tea.Msg {
	out := make([]tea.Msg, len(ks))
	for i, k := range ks {
		out[i] = keyPress(k)
	}
	return out
}

// blockingRun is a RunFunc that reports one snapshot and then waits for
// the console to cancel it, as a long run would.
func blockingRun(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string, cb RunCallbacks) (string, error) {
	cb.Snapshot(fakeRun(4, 3, -1)[0])
	<-ctx.Done()
	return "outcome:   aborted", ctx.Err()
}

// waitSnapshot drains the feed until the run has reported a snapshot.
func waitSnapshot(t *testing.T, f *runFeed) runTickMsg {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		ready := f.snap != nil
		f.mu.Unlock()
		if ready {
			return f.drain()
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the run reported no snapshot")
	return runTickMsg{}
}

func TestRootScreens(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, m Model) Model
	}{
		{name: "sites", setup: func(t *testing.T, m Model) Model { return m }},
		{name: "help_compose", setup: func(t *testing.T, m Model) Model { return send(m, keys("3", "?")...) }},
		{name: "quit_confirm_live_run", setup: func(t *testing.T, m Model) Model {
			m = send(m, StartRunMsg{Spec: jobs.Spec{Name: "long", Scheme: jobs.Asynchronous}})
			m = send(m, waitSnapshot(t, m.feed)) // the first tick: one snapshot
			return send(m, keys("q")...)
		}},
		{name: "inventory_error", setup: func(t *testing.T, m Model) Model {
			return New(Config{InventoryErr: fmt.Errorf("deploy: sites.toml:2:1: unknown launcher \"pbs\""), NoLoad: true})
		}},
	}
	for _, tc := range cases {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tc.name, sz.w, sz.h), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				m := New(Config{Ctx: ctx, Inventory: inventory.Embedded(), Run: blockingRun, NoLoad: true})
				m = tc.setup(t, m)
				m = send(m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				out := m.render()
				if n := strings.Count(out, "\n") + 1; n != sz.h {
					t.Errorf("screen has %d lines, want %d", n, sz.h)
				}
				requireGolden(t, out)
			})
		}
	}
}

func TestRootKeyRouting(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m = send(m, keys("3")...)
	if m.Tab() != TabCompose {
		t.Fatalf("3 opened tab %d, want Compose", m.Tab())
	}
	// Editing n: digits and q go into the field, not to tabs or quit.
	m = send(m, keys("down", "down", "enter", "backspace", "backspace", "2", "q", "1")...)
	if m.Tab() != TabCompose || m.quitting {
		t.Fatalf("typing in a field switched tab (%d) or quit (%v)", m.Tab(), m.quitting)
	}
	if got := m.compose.EditBuffer(); got != "2q1" {
		t.Errorf("field buffer %q, want %q", got, "2q1")
	}
	m = send(m, keys("esc", "tab")...)
	if m.Tab() != TabRun {
		t.Errorf("tab went to %d, want Run", m.Tab())
	}
	// Filtering in Sites: q is part of the filter.
	m = send(m, keys("1", "/", "q")...)
	if m.quitting || m.sites.Filter() != "q" {
		t.Errorf("filter %q, quitting %v", m.sites.Filter(), m.quitting)
	}
	m = send(m, keys("esc", "esc")...)
	_, cmd := m.Update(keyPress("q"))
	if cmd == nil {
		t.Fatal("q with no live run did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q did not return tea.Quit")
	}
}

// TestHelpListsOnlyWorkingKeys: Compose has no filterable list, so neither
// its help bar nor its full help offers / (filter) or s (sort); the tabs
// with lists offer both.
func TestHelpListsOnlyWorkingKeys(t *testing.T) {
	cases := []struct {
		name     string
		tab      string
		wantList bool
	}{
		{name: "sites", tab: "1", wantList: true},
		{name: "compose", tab: "3", wantList: false},
		{name: "results", tab: "5", wantList: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
			m.results.SetResults(uitest.SampleResults(), nil)
			m = send(m, tea.WindowSizeMsg{Width: 200, Height: 50})
			m = send(m, keys(tc.tab)...)
			bar := ansiStrip(m.shortHelp())
			full := strings.Join(strings.Fields(ansiStrip(m.fullHelp())), " ")
			for _, probe := range []struct{ text, where string }{
				{"/ filter", bar}, {"/ filter", full}, {"sort column", full},
			} {
				if got := strings.Contains(probe.where, probe.text); got != tc.wantList {
					t.Errorf("help shows %q: %v, want %v", probe.text, got, tc.wantList)
				}
			}
		})
	}
}

// TestMultiLineStatusKeepsLayout: an error listing several failed hosts
// takes one status line; the screen keeps its height and its help bar.
func TestMultiLineStatusKeepsLayout(t *testing.T) {
	for _, sz := range sizes {
		m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
		m = send(m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		m.setStatus(true, "run failed: engine: start workers: deploy: hosts failed: 2 of 2:\n  h1: refused\n  h2: refused")
		lines := strings.Split(ansiStrip(m.render()), "\n")
		if len(lines) != sz.h {
			t.Errorf("%dx%d: %d lines on screen, want %d", sz.w, sz.h, len(lines), sz.h)
			continue
		}
		if last := lines[len(lines)-1]; !strings.Contains(last, "? help") {
			t.Errorf("%dx%d: last line %q, want the help bar", sz.w, sz.h, last)
		}
		if st := lines[len(lines)-2]; !strings.HasPrefix(st, "run failed: engine: start workers") || !strings.Contains(st, " · ") {
			t.Errorf("%dx%d: status line %q, want the error on one line", sz.w, sz.h, st)
		}
	}
}

// TestAbortConfirmation: A asks first; n keeps the run, y cancels it.
func TestAbortConfirmation(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), Run: blockingRun, NoLoad: true})
	m = send(m, StartRunMsg{Spec: jobs.Spec{Name: "long", Scheme: jobs.Asynchronous}})
	feed := m.feed
	m = send(m, waitSnapshot(t, feed))
	next, cmd := m.Update(keyPress("A"))
	m = send(next.(Model), cmd())
	if m.confirm == nil {
		t.Fatal("A did not ask for confirmation")
	}
	m = send(m, keys("n")...)
	if m.confirm != nil || !m.run.Running() {
		t.Fatal("n did not keep the run")
	}
	next, cmd = m.Update(keyPress("A"))
	m = send(next.(Model), cmd())
	next, cmd = m.Update(keyPress("y"))
	m = send(next.(Model), cmd())
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if tick := feed.drain(); tick.done {
			m = send(m, tick)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m.run.Running() || !strings.Contains(m.run.Outcome(), "aborted") {
		t.Errorf("after y: running %v, outcome %q", m.run.Running(), m.run.Outcome())
	}
}

// engineLikeAbort is a RunFunc that ends on cancellation the way
// EngineRun does: its report reads the nodes the run stopped aborted, and
// its error names the run and wraps engine.ErrRunAborted and the context's
// error (abortLike; TestConsoleAbort runs the real engine).
func engineLikeAbort(ctx context.Context, spec jobs.Spec, inv *inventory.Inventory, dir string, cb RunCallbacks) (string, error) {
	snap := fakeRun(4, 3, -1)[0]
	cb.Snapshot(snap)
	<-ctx.Done()
	cb.Report(&engine.Report{Spec: spec, Outcome: "aborted", Nodes: stoppedReport(snap)})
	return "outcome:   aborted\ncause:     run: interrupted: context canceled", uitest.AbortLike{Run: spec.Name, CtxErr: ctx.Err()}
}

// TestAbortShownAsAborted: a run the user aborted reads "aborted" in the
// Run view's title, its first outcome line, its state counts and the
// status line, not "failed" with the engine's cancellation error.
func TestAbortShownAsAborted(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), Run: engineLikeAbort, NoLoad: true})
	m = send(m, StartRunMsg{Spec: jobs.Spec{Name: "long", Scheme: jobs.Asynchronous}})
	feed := m.feed
	m = send(m, waitSnapshot(t, feed))
	m = send(m, AbortRequestMsg{})
	m = send(m, abortConfirmedMsg{})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && m.run.Running() {
		if tick := feed.drain(); tick.done {
			m = send(m, tick)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m.run.Running() {
		t.Fatal("the run did not end after the abort")
	}
	title := ansiStrip(m.run.TitleLine())
	if !strings.Contains(title, "· aborted ·") {
		t.Errorf("title %q, want the run shown as aborted", title)
	}
	if first, _, _ := strings.Cut(m.run.Outcome(), "\n"); first != "run aborted by the user" {
		t.Errorf("first outcome line %q, want %q", first, "run aborted by the user")
	}
	if m.status != "run aborted" {
		t.Errorf("status %q, want %q", m.status, "run aborted")
	}
	if got := ansiStrip(m.run.CountsLine()); got != "stopped, last states: ⊘ aborted 4" {
		t.Errorf("counts %q, want the report's 4 aborted nodes", got)
	}
	// A later run that fails on its own is a failure again.
	m.run.Start(jobs.Spec{Name: "next"})
	m.run.Finish("outcome:   failed", errors.New("engine: node alpha-2 lost"))
	if title := ansiStrip(m.run.TitleLine()); !strings.Contains(title, "· failed ·") {
		t.Errorf("title of a failed run after an aborted one %q, want failed", title)
	}
}

// screenModel wraps the console for the teatest flow: it keeps the text of
// the last frame the program drew, so the test waits on what is on screen
// rather than on the renderer's byte stream (which only redraws changes).
type screenModel struct {
	Model
	last *screenText
}

type screenText struct {
	mu   sync.Mutex
	text string
}

func (s screenModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := s.Model.Update(msg)
	return screenModel{Model: next.(Model), last: s.last}, cmd
}

func (s screenModel) View() tea.View {
	v := s.Model.View()
	s.last.mu.Lock()
	s.last.text = ansi.Strip(v.Content)
	s.last.mu.Unlock()
	return v
}

// waitScreen waits until the screen shows one of want, or fails after a
// generous timeout (the machine is shared and slow).
func waitScreen(t *testing.T, scr *screenText, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		scr.mu.Lock()
		text := scr.text
		scr.mu.Unlock()
		for _, w := range want {
			if strings.Contains(text, w) {
				return text
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen never showed %q; last screen:\n%s", want, text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestConsoleFlow drives the console as a user would, on the local grid
// with real worker processes: open Compose, choose the 4 nodes of cluster
// alpha, pick the asynchronous scheme, start, see the run reach
// Terminated, and find it in Results.
func TestConsoleFlow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	store := t.TempDir()
	// Workers are this test binary; under -race on a loaded machine they
	// need far longer than the default 30 s to say hello.
	patient := EngineRunWith(deploy.Options{HelloTimeout: 3 * time.Minute})
	m := New(Config{Inventory: inventory.Embedded(), Run: patient, StoreDir: store, NoLoad: true})
	scr := &screenText{}
	tm := teatest.NewTestModel(t, screenModel{Model: m, last: scr}, teatest.WithInitialTermSize(100, 30))
	sendKeys := func(ks ...string) {
		for _, k := range ks {
			tm.Send(keyPress(k))
		}
	}
	sendKeys("3")
	waitScreen(t, scr, "Nodes (8 chosen)")                             // the default job's, as gridtui run's
	sendKeys("right", "down", "down", "down", "down", "down", "space") // cluster beta off: alpha's 4 hosts
	waitScreen(t, scr, "Nodes (4 chosen)")
	// Form: n = 24, ε = 1e-6 (a run of a fraction of a second), scheme async.
	sendKeys("left", "down", "down", "enter", "ctrl+u")
	tm.Type("24")
	sendKeys("enter", "down", "enter", "ctrl+u")
	tm.Type("1e-6")
	sendKeys("enter", "down", "down", "down", "enter", "enter") // hybrid → sync → async
	waitScreen(t, scr, "‹async›")
	sendKeys("r")
	waitScreen(t, scr, " · finished · ", " · failed · ")
	sendKeys("5")
	// The run's end reloads the results store in the background: the page
	// may show the empty store until the reload lands.
	waitScreen(t, scr, "1 of 1")
	sendKeys("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(30*time.Second)).(screenModel).Model

	run := final.run
	if run.Failed() || run.Running() {
		t.Fatalf("run failed or still running: %s", run.Outcome())
	}
	if len(run.Snapshot().Nodes) != 4 {
		t.Fatalf("last snapshot has %d nodes, want 4", len(run.Snapshot().Nodes))
	}
	for _, n := range run.Snapshot().Nodes {
		if n.State != engine.StateTerminated {
			t.Errorf("node %s ended %s, want terminated", n.Node, n.State)
		}
	}
	if run.Spec().Scheme != jobs.Asynchronous || run.Spec().Params["n"] != "24" {
		t.Errorf("ran %s n=%s, want async n=24", run.Spec().Scheme, run.Spec().Params["n"])
	}
	if !strings.Contains(run.Outcome(), "outcome:   ok") {
		t.Errorf("outcome lines %q, want ok", run.Outcome())
	}
	for _, h := range []string{"alpha-1", "alpha-4"} {
		if st := final.sites.HostState(h); st.Phase == "" || st.Worker != WorkerDown {
			t.Errorf("Sites shows %s as %+v after the run, want a start phase and its worker down", h, st)
		}
	}
	if st := final.sites.HostState("beta-1"); st.Phase != "" {
		t.Errorf("beta-1 was not in the job but shows phase %q", st.Phase)
	}
	res := final.results.Results()
	if res == nil || len(res.Records) != 1 || res.Records[0].Job.Scheme != jobs.Asynchronous || res.Records[0].Job.Nodes != 4 {
		t.Fatalf("Results does not list the run: %+v", res)
	}
	if v := ansi.Strip(final.results.View()); !strings.Contains(v, "async") || !strings.Contains(v, "1 of 1") {
		t.Errorf("Results screen does not show the run:\n%s", v)
	}
}

// TestPreflightShownInNetwork: the Network view reports, per pair of the
// last run, whether the best network answered (ok) or a fallback was used.
func TestPreflightShownInNetwork(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), Run: blockingRun, NoLoad: true})
	m.compose.ClearNodes()
	for _, h := range []string{"alpha-1", "alpha-2", "beta-1"} {
		m.compose.Pick(true, h)
	}
	m = send(m, StartRunMsg{Spec: m.compose.Spec()})
	if got := m.network.Pairs()[0].Preflight; got != "pending" {
		t.Fatalf("before the links are up: %q, want pending", got)
	}
	snap := fakeRun(3, 2, -1)[0]
	m = send(m, runTickMsg{feed: m.feed, runBatch: runBatch{snap: &snap, logs: []engine.LogEvent{
		{Node: "alpha-1", Text: "alpha-1 ↔ alpha-2: infiniband unreachable (connection refused), falling back to ethernet 127.16.64.10 ↔ 127.16.64.11"},
	}}})
	want := map[string]string{"alpha-1↔alpha-2": "fallback", "alpha-2↔beta-1": "ok"}
	for _, p := range m.network.Pairs() {
		if w := want[p.A+"↔"+p.B]; p.Preflight != w {
			t.Errorf("%s ↔ %s pre-flight %q, want %q", p.A, p.B, p.Preflight, w)
		}
	}
	m.cancelRun()
}

// TestProbeRebuildsHtable: p runs the probe as a command and its result
// replaces the Htable in Network and Compose.
func TestProbeRebuildsHtable(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m.network.SetHtable(nil, nil)
	next, cmd := m.Update(keyPress("p"))
	m = next.(Model)
	if cmd == nil {
		t.Fatal("p did nothing")
	}
	next, cmd = m.Update(cmd()) // ProbeRequestMsg → probe command
	m = next.(Model)
	msg, ok := cmd().(htableMsg)
	if !ok || msg.err != nil || len(msg.table.Rows()) != 8 {
		t.Fatalf("probe result %+v", msg)
	}
	m = send(m, msg)
	if h := m.network.Htable(); h == nil || len(h.Rows()) != 8 || m.compose.Htable() != h {
		t.Errorf("Htable not shown in Network and Compose")
	}
}

// TestPassphrasePrompt: deploy's passphrase questions are answered in a
// masked prompt, one at a time; esc refuses.
func TestPassphrasePrompt(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	ch := make(chan tea.Msg)
	r1, r2 := make(chan []byte, 1), make(chan []byte, 1)
	m = send(m, passphrasePromptMsg{host: "h1", keyfile: "~/.ssh/id_ed25519", reply: r1, ch: ch},
		passphrasePromptMsg{host: "h2", keyfile: "~/.ssh/other", reply: r2, ch: ch})
	m = send(m, keys("s", "3", "q", "backspace", "x")...)
	if m.quitting || m.Tab() != TabSites {
		t.Fatal("keys typed into the passphrase acted on the console")
	}
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "Passphrase for ~/.ssh/id_ed25519") || !strings.Contains(screen, "•••") || strings.Contains(screen, "s3x") {
		t.Errorf("prompt not shown masked:\n%s", screen)
	}
	m = send(m, keys("enter")...)
	if got := string(<-r1); got != "s3x" {
		t.Errorf("answered %q, want s3x", got)
	}
	if m.secret == nil || m.secret.host != "h2" {
		t.Fatal("the second prompt did not follow")
	}
	m = send(m, keys("esc")...)
	if got := <-r2; got != nil || m.secret != nil {
		t.Errorf("esc answered %q, prompt %v", got, m.secret)
	}
}

// TestHostKeyPrompt: an unknown host key is shown with its fingerprint on
// the host's row and in a question; y accepts, n refuses.
func TestHostKeyPrompt(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	ch := make(chan tea.Msg)
	reply := make(chan bool, 1)
	fp := "SHA256:q1w2e3r4t5y6u7i8o9p0"
	m = send(m, hostKeyPromptMsg{host: "[alpha-2]:22", fingerprint: fp, reply: reply, ch: ch})
	if st := m.sites.HostState("alpha-2"); st.Fingerprint != fp {
		t.Errorf("alpha-2 shows fingerprint %q", st.Fingerprint)
	}
	if screen := ansi.Strip(m.render()); !strings.Contains(screen, fp) || !strings.Contains(screen, "Accept it") {
		t.Errorf("no host key question on screen:\n%s", screen)
	}
	next, cmd := m.Update(keyPress("y"))
	m = send(next.(Model), cmd())
	if !<-reply {
		t.Error("y did not accept the key")
	}
	if st := m.sites.HostState("alpha-2"); st.Fingerprint != "" {
		t.Error("the pending key is still shown after the answer")
	}
	// Two hosts at once (a parallel deploy): both listed with their
	// fingerprints; n asks one at a time.
	reply2 := make(chan bool, 1)
	fp2 := "SHA256:zzzzzzzzzzzzzzzzzzzz"
	m = send(m, hostKeyPromptMsg{host: "[beta-1]:22", fingerprint: fp, reply: reply, ch: ch},
		hostKeyPromptMsg{host: "[beta-2]:22", fingerprint: fp2, reply: reply2, ch: ch})
	if q := m.confirm.question; !strings.Contains(q, "Accept all 2 shown") || !strings.Contains(q, fp) || !strings.Contains(q, fp2) {
		t.Fatalf("two pending keys: question %q, want both fingerprints and accept all 2", q)
	}
	next, cmd = m.Update(keyPress("n"))
	m = send(next.(Model), cmd())
	if m.confirm == nil || !strings.Contains(m.confirm.question, "beta-1") || strings.Contains(m.confirm.question, "beta-2") {
		t.Fatalf("after n, want beta-1 asked alone, got %+v", m.confirm)
	}
	next, cmd = m.Update(keyPress("n"))
	m = send(next.(Model), cmd())
	if <-reply {
		t.Error("n accepted the key")
	}
	if m.confirm == nil || !strings.Contains(m.confirm.question, "beta-2") {
		t.Fatal("the second host's key was not asked about")
	}
	next, cmd = m.Update(keyPress("y"))
	m = send(next.(Model), cmd())
	if !<-reply2 {
		t.Error("y did not accept beta-2's key")
	}
	// Three at once, accepted together with one y.
	replies := []chan bool{make(chan bool, 1), make(chan bool, 1), make(chan bool, 1)}
	for i, r := range replies {
		m = send(m, hostKeyPromptMsg{host: fmt.Sprintf("[alpha-%d]:22", i+1), fingerprint: fp, reply: r, ch: ch})
	}
	next, cmd = m.Update(keyPress("y"))
	m = send(next.(Model), cmd())
	for i, r := range replies {
		if !<-r {
			t.Errorf("accept all 3: alpha-%d refused", i+1)
		}
	}
	if m.confirm != nil || len(m.keyPrompts) != 0 {
		t.Errorf("after accept all, still asking: %+v", m.confirm)
	}
}

// TestMouse: clicking a tab opens it; the wheel moves the list cursor.
func TestMouse(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	bar := ansi.Strip(m.tabBar())
	x := strings.Index(bar, "3 Compose")
	m = send(m, tea.MouseClickMsg{X: len([]rune(bar[:x])), Y: 0, Button: tea.MouseLeft})
	if m.Tab() != TabCompose {
		t.Fatalf("click on %q opened tab %d", "3 Compose", m.Tab())
	}
	m = send(m, keys("1")...)
	m = send(m, tea.MouseWheelMsg{Button: tea.MouseWheelDown}, tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if r, _ := m.sites.Selected(); r.Key != "host/alpha-1" {
		t.Errorf("after two wheel steps the cursor is on %s, want alpha-1", r.Key)
	}
}

// TestNoticeShownAtStart: when ./sites.toml was skipped (the repository's
// example), the console says so in its status line from the first frame.
func TestNoticeShownAtStart(t *testing.T) {
	inv := inventory.Embedded()
	inv.Notice = "./sites.toml is an example (example = true): using the embedded local grid"
	m := New(Config{Inventory: inv, NoLoad: true})
	if !strings.Contains(m.status, "example = true") {
		t.Fatalf("status %q does not show the inventory notice", m.status)
	}
}

// TestChallengePrompt: a keyboard-interactive challenge (a one-time code)
// is answered in the console, question by question, masked unless the
// server allows echo; esc refuses.
func TestChallengePrompt(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	ch := make(chan tea.Msg)
	r1, r2 := make(chan []string, 1), make(chan []string, 1)
	m = send(m, challengePromptMsg{host: "fe", instruction: "Two steps", questions: []string{"Login name:", "Code:"},
		echo: []bool{true, false}, reply: r1, ch: ch},
		challengePromptMsg{host: "fe2", questions: []string{"Code:"}, echo: []bool{false}, reply: r2, ch: ch})
	m = send(m, keys("b", "o", "b")...)
	screen := ansi.Strip(m.render())
	if !strings.Contains(screen, "fe asks") || !strings.Contains(screen, "Two steps") || !strings.Contains(screen, "Login name: bob") {
		t.Errorf("first question not shown with its echo:\n%s", screen)
	}
	m = send(m, keys("enter", "4", "2")...)
	screen = ansi.Strip(m.render())
	if !strings.Contains(screen, "Code: ••") || strings.Contains(screen, "42") {
		t.Errorf("code not masked:\n%s", screen)
	}
	m = send(m, keys("enter")...)
	if got := <-r1; strings.Join(got, ",") != "bob,42" {
		t.Errorf("answers %q, want bob,42", got)
	}
	if m.secret == nil || m.secret.host != "fe2" {
		t.Fatal("the second challenge did not follow")
	}
	m = send(m, keys("esc")...)
	if got := <-r2; got != nil || m.secret != nil {
		t.Errorf("esc answered %q", got)
	}
}

// TestStatusStaysOnItsTab: a note ("stop: 1 host(s) done") shows on the
// tab it was said on only; an error shows everywhere.
func TestStatusStaysOnItsTab(t *testing.T) {
	m := New(Config{Inventory: inventory.Embedded(), NoLoad: true})
	m.tab = TabSites
	m.setStatus(false, "stop: 1 host(s) done")
	m.tab = TabRun
	if strings.Contains(ansi.Strip(m.View().Content), "host(s) done") {
		t.Error("a note of the Sites tab shows on the Run tab")
	}
	m.tab = TabSites
	if !strings.Contains(ansi.Strip(m.View().Content), "host(s) done") {
		t.Error("the note does not show on its own tab")
	}
	m.setStatus(true, "deploy: 1 of 1 host(s) failed")
	m.tab = TabResults
	if !strings.Contains(ansi.Strip(m.View().Content), "host(s) failed") {
		t.Error("an error does not show on every tab")
	}
}
