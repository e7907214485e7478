package prompt

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestPrompt(t *testing.T) {
	p := New("host asks", []string{"Code:", "PIN:"}, []bool{true, false})
	for _, r := range "12x" {
		p.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	p.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if v := p.View(); !strings.Contains(v, "Code: 12▏") {
		t.Errorf("echoed question: %q", v)
	}
	if o := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); o != Typing {
		t.Fatalf("first answer: %v", o)
	}
	p.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
	if v := p.View(); strings.Contains(v, "PIN: s") || !strings.Contains(v, "PIN: •▏") {
		t.Errorf("a masked answer shows: %q", v)
	}
	if o := p.Update(tea.KeyPressMsg{Code: tea.KeyEnter}); o != Answered || string(p.Answers()[0]) != "12" || string(p.Answers()[1]) != "s" {
		t.Errorf("answers %v %q", o, p.Answers())
	}
	q := New("t", []string{""}, []bool{false})
	if o := q.Update(tea.KeyPressMsg{Code: tea.KeyEscape}); o != Refused {
		t.Errorf("esc: %v", o)
	}
}
