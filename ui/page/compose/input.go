package compose

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// valueColumn is where a form field's value starts on its line: the mark,
// a space and the label padded to 18 cells, then a space (formLines).
const valueColumn = 19

// formWidth is the width of the form pane (View's left column).

// startEdit opens the text field under the cursor (a form field, a row of
// the Predict panel) with value in a bubbles
// textinput: the cursor at the end, moved with ←/→, home/end and by word,
// text pasted from the terminal inserted where it is. The terminal's own
// cursor shows where (Model.View places it, editCursor says where).
func (v *Model) startEdit(value string) tea.Cmd {
	k := v.common.Keys
	in := textinput.New()
	in.Prompt = ""
	in.SetVirtualCursor(false)
	in.KeyMap.DeleteCharacterBackward = k.DeleteChar
	in.KeyMap.DeleteBeforeCursor = k.ClearText
	in.SetWidth(max(1, formWidth(v.common)-valueColumn-1))
	in.SetValue(value)
	in.CursorEnd()
	v.input, v.editing = in, true
	return v.input.Focus()
}

// editKey edits the focused text field: enter keeps, esc cancels, the rest
// is the textinput's.
func (v *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	k := v.common.Keys
	switch {
	case key.Matches(msg, k.Accept):
		v.editing = false
		v.input.Blur()
		if v.pane == panePredict {
			v.setPredictValue(v.cursor[panePredict], v.input.Value())
			return nil
		}
		v.fields[v.cursor[paneForm]].Value = v.input.Value()
		if v.fields[v.cursor[paneForm]].ID == fAny {
			// "Take N nodes" changes the nodes: keep what applies of a
			// hand-edited hierarchy, as a change of the node choice does.
			if note := v.keepHierarchy(); note != "" {
				v.status = note
			}
		}
		v.validate()
		return nil
	case key.Matches(msg, k.Cancel):
		v.editing = false
		v.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	v.input, cmd = v.input.Update(msg)
	return cmd
}

// editCursor is where the terminal's cursor goes while a field is edited,
// in the body's coordinates; nil when nothing is edited or the field is
// not on screen.
func (v Model) editCursor() *tea.Cursor {
	if !v.editing {
		return nil
	}
	c := v.input.Cursor()
	if c == nil {
		return nil
	}
	x, row := valueColumn, 1+v.cursor[paneForm]-formFirst(v.cursor[paneForm], v.drawn.mainH) // below the pane's title
	if v.pane == panePredict {
		d := v.drawn.predict
		x, row = d.x+predictValueColumn, d.y+v.cursor[panePredict]-d.first
		if row < d.y || row >= d.y+d.h {
			return nil
		}
	}
	if row >= v.common.BodyHeight()-1 {
		return nil
	}
	c.Position.X += x
	c.Position.Y += row
	return c
}

// editKeyMap is the help of a field being edited.
type editKeyMap struct {
	Keep, Cancel, Move, Word, Ends, Delete, Clear, Paste key.Binding
}

func (v Model) editKeys() editKeyMap {
	k := v.common.Keys
	return editKeyMap{
		Keep: k.Accept, Cancel: k.Cancel,
		Move:   bind("←/→", "move", "left", "right"),
		Word:   bind("alt+←/→", "by word", "alt+left", "alt+right"),
		Ends:   bind("home/end", "start/end", "home", "end"),
		Delete: k.DeleteChar, Clear: bind("ctrl+u", "delete to start", "ctrl+u"),
		Paste: bind("paste", "from the terminal", ""),
	}
}

// ShortHelp implements help.KeyMap.
func (k editKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Keep, k.Cancel, k.Move, k.Ends, k.Delete, k.Clear}
}

// FullHelp implements help.KeyMap.
func (k editKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Keep, k.Cancel, k.Paste}, {k.Move, k.Word, k.Ends}, {k.Delete, k.Clear}}
}
