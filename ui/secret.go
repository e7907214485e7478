package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/gridtui/gridtui/ui/widget/prompt"
)

// secretPrompt is text entry answering what deploy asks while it connects:
// the passphrase of an identity file (one masked answer), or a server's
// keyboard-interactive challenge (a one-time code: one answer per question,
// masked unless the server allows echo). Typed bytes are handed to deploy
// and dropped here; masked ones are never shown or logged.
type secretPrompt struct {
	host   string // for the passphrase test and messages
	prompt prompt.Model
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
	return &secretPrompt{host: p.host, prompt: prompt.New(fmt.Sprintf("Passphrase for %s\n(to log in to %s)", p.keyfile, p.host),
		[]string{""}, []bool{false}),
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
	return &secretPrompt{host: c.host, prompt: prompt.New(title, c.questions, c.echo),
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

// secretKey edits the answer (the prompt widget): enter answers the
// question (the last one sends them all), esc or ctrl+c refuses.
func (m *Model) secretKey(msg tea.KeyPressMsg) {
	sp := m.secret
	k := m.common.Keys
	sp.prompt.KeyMap = prompt.KeyMap{Accept: k.Accept, Cancel: k.Cancel, DeleteChar: k.DeleteChar}
	sp.prompt.Styles = prompt.Styles{Key: m.common.Styles.Key}
	outcome := prompt.Refused
	if !key.Matches(msg, k.Interrupt) {
		outcome = sp.prompt.Update(msg)
	}
	switch outcome {
	case prompt.Answered:
		sp.answer(sp.prompt.Answers())
		m.secret = nil
	case prompt.Refused:
		sp.answer(nil)
		m.secret = nil
		m.setStatus(true, "%s", sp.refused)
	}
	if m.secret == nil && len(m.secretQueue) > 0 {
		m.secret = m.secretQueue[0]
		m.secretQueue = m.secretQueue[1:]
	}
}

// view is the prompt's dialog text.
func (sp *secretPrompt) view(c *Common) string {
	sp.prompt.Styles = prompt.Styles{Key: c.Styles.Key}
	return sp.prompt.View()
}
