package ui

import (
	tea "charm.land/bubbletea/v2"
)

// ResultsView lists past runs from the results store.
type ResultsView struct {
	common *Common
	err    error
}

// NewResultsView returns the Results view.
func NewResultsView(c *Common) ResultsView {
	return ResultsView{common: c, err: errResultsPending}
}

var errResultsPending = errorString("the results store (jobs.Load) is not implemented yet")

type errorString string

func (e errorString) Error() string { return string(e) }

func (v ResultsView) help() bindingList { return bindingList{} }

// Update handles the Results view's keys.
func (v ResultsView) Update(msg tea.Msg) (ResultsView, tea.Cmd) { return v, nil }

func (v ResultsView) capturing() bool { return false }

// View renders the Results view.
func (v ResultsView) View() string {
	s := v.common.Styles
	return placeBody(v.common, s.Title.Render("Results")+"\n"+s.Dim.Render(v.err.Error()))
}

type resultsLoadedMsg struct{}
type exportDoneMsg struct{}

func (v ResultsView) load(dir string) tea.Cmd { return nil }
