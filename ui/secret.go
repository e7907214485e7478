package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// secretPrompt is text entry answering what deploy asks while it connects:
// the passphrase of an identity file (one masked answer), or a server's
// keyboard-interactive challenge (a one-time code: one answer per question,
// masked unless the server allows echo). Typed bytes are handed to deploy
// and dropped here; masked ones are never shown or logged.
type secretPrompt struct {
	host      string // for the passphrase test and messages
	title     string
	questions []string
	echo      []bool
	answers   [][]byte
	buf       []byte
	// answer receives the answers, or nil when the user refused.
	answer  func([][]byte)
	refused string // the status line when refused
}

// challengePromptMsg asks the user to answer a keyboard-interactive
// challenge of host; reply receives the answers, or nil when refused.
type challengePromptMsg struct {
	host, instruction string
	questions         []string
	echo              []bool
	reply             chan<- []string
	ch                <-chan tea.Msg
}

func passphraseSecret(p passphrasePromptMsg) *secretPrompt {
	return &secretPrompt{host: p.host, title: fmt.Sprintf("Passphrase for %s\n(to log in to %s)", p.keyfile, p.host),
		questions: []string{""}, echo: []bool{false},
		answer: func(a [][]byte) {
			if a == nil {
				p.reply <- nil // buffered: never blocks
				return
			}
			p.reply <- a[0]
		},
		refused: "deploy: passphrase for " + p.keyfile + " refused"}
}

func challengeSecret(c challengePromptMsg) *secretPrompt {
	title := c.host + " asks"
	if c.instruction != "" {
		title += "\n" + c.instruction
	}
	return &secretPrompt{host: c.host, title: title, questions: c.questions, echo: c.echo,
		answer: func(a [][]byte) {
			if a == nil {
				c.reply <- nil
				return
			}
			out := make([]string, len(a))
			for i, b := range a {
				out[i] = string(b)
			}
			c.reply <- out
		},
		refused: "deploy: " + c.host + ": keyboard-interactive login refused"}
}

// pushSecret shows p, or queues it behind the prompt being answered.
func (m *Model) pushSecret(p *secretPrompt) {
	if m.secret != nil {
		m.secretQueue = append(m.secretQueue, p)
		return
	}
	m.secret = p
}

// secretKey edits the answer: enter answers the question (the last one
// sends them all), esc refuses.
func (m *Model) secretKey(msg tea.KeyPressMsg) {
	sp := m.secret
	k := m.common.Keys
	switch {
	case key.Matches(msg, k.Accept):
		sp.answers = append(sp.answers, sp.buf)
		sp.buf = nil
		if len(sp.answers) >= len(sp.questions) {
			sp.answer(sp.answers)
			m.secret = nil
		}
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Interrupt):
		sp.answer(nil)
		m.secret = nil
		m.setStatus(true, "%s", sp.refused)
	case key.Matches(msg, k.DeleteChar):
		if len(sp.buf) > 0 {
			sp.buf = sp.buf[:len(sp.buf)-1]
		}
	default:
		sp.buf = append(sp.buf, msg.Text...)
	}
	if m.secret == nil && len(m.secretQueue) > 0 {
		m.secret = m.secretQueue[0]
		m.secretQueue = m.secretQueue[1:]
	}
}

// view is the prompt's dialog text.
func (sp *secretPrompt) view(c *Common) string {
	i := min(len(sp.answers), len(sp.questions)-1)
	shown := strings.Repeat("•", len(sp.buf))
	if sp.echo[i] {
		shown = string(sp.buf)
	}
	q := strings.TrimSpace(sp.questions[i])
	if q != "" {
		q += " "
	}
	return fmt.Sprintf("%s\n\n%s%s▏\n\n%s answer   %s cancel", sp.title, q, shown, c.Styles.Key.Render("enter"), c.Styles.Key.Render("esc"))
}
