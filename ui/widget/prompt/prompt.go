package prompt

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Model is text entry for secrets: one answer per question, each masked
// unless its question allows echo. The typed bytes are kept until the last
// answer and handed over whole; a masked answer is never shown.
type Model struct {
	KeyMap    KeyMap
	Styles    Styles
	Title     string
	Questions []string
	Echo      []bool
	answers   [][]byte
	buf       []byte
}

// KeyMap is the prompt's key map.
type KeyMap struct {
	// Accept answers the question (the last one ends the prompt), Cancel
	// refuses, DeleteChar deletes the last byte typed.
	Accept, Cancel, DeleteChar key.Binding
}

// DefaultKeyMap returns the prompt's default keys.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{Accept: b("enter", "answer", "enter"), Cancel: b("esc", "cancel", "esc", "ctrl+c"),
		DeleteChar: b("backspace", "delete", "backspace")}
}

// Styles are the prompt's styles (its keys' names).
type Styles struct{ Key lipgloss.Style }

// DefaultStyles returns the prompt's default styles.
func DefaultStyles() Styles { return Styles{Key: lipgloss.NewStyle().Bold(true)} }

// New returns a prompt of the questions (echo[i]: question i's answer is
// shown as typed).
func New(title string, questions []string, echo []bool) Model {
	return Model{KeyMap: DefaultKeyMap(), Styles: DefaultStyles(), Title: title, Questions: questions, Echo: echo}
}

// Outcome is what a key did to the prompt.
type Outcome int

// Outcomes of Update.
const (
	// Typing: the prompt waits for more.
	Typing Outcome = iota
	// Answered: every question has its answer (Answers).
	Answered
	// Refused: the user cancelled.
	Refused
)

// Update edits the answer being typed: Accept answers the question, Cancel
// refuses, any other key's text is typed.
func (p *Model) Update(msg tea.KeyPressMsg) Outcome {
	k := p.KeyMap
	switch {
	case key.Matches(msg, k.Accept):
		p.answers = append(p.answers, p.buf)
		p.buf = nil
		if len(p.answers) >= len(p.Questions) {
			return Answered
		}
	case key.Matches(msg, k.Cancel):
		return Refused
	case key.Matches(msg, k.DeleteChar):
		if len(p.buf) > 0 {
			p.buf = p.buf[:len(p.buf)-1]
		}
	default:
		p.buf = append(p.buf, msg.Text...)
	}
	return Typing
}

// Answers returns the answers given, one per question once Answered.
func (p *Model) Answers() [][]byte { return p.answers }

// View is the prompt's dialog text: the title, the question and its answer
// (masked unless echoed), and the keys.
func (p *Model) View() string {
	i := min(len(p.answers), len(p.Questions)-1)
	shown := strings.Repeat("•", len(p.buf))
	if i >= 0 && i < len(p.Echo) && p.Echo[i] {
		shown = string(p.buf)
	}
	q := ""
	if i >= 0 {
		q = strings.TrimSpace(p.Questions[i])
	}
	if q != "" {
		q += " "
	}
	return fmt.Sprintf("%s\n\n%s%s▏\n\n%s answer   %s cancel", p.Title, q, shown,
		p.Styles.Key.Render(p.KeyMap.Accept.Help().Key), p.Styles.Key.Render(firstKey(p.KeyMap.Cancel)))
}

func firstKey(b key.Binding) string {
	if ks := b.Keys(); len(ks) > 0 {
		return ks[0]
	}
	return ""
}
