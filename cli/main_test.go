package cli

import (
	"bytes"
	"strings"
	"testing"
)

// TestExitCodes runs the command line as main does and checks the exit code:
// 2 for usage errors (unknown flags, commands, arguments and flag values),
// 0 for --version and help.
func TestExitCodes(t *testing.T) {
	tests := map[string]struct {
		args []string
		code int
		out  string // a substring of stdout+stderr
	}{
		"unknown flag":      {[]string{"run", "--bogus"}, 2, "--bogus"},
		"unknown command":   {[]string{"frobnicate"}, 2, "frobnicate"},
		"bad format":        {[]string{"results", "--format", "xml"}, 2, "xml"},
		"bad table":         {[]string{"results", "--table", "x"}, 2, "--table"},
		"extra argument":    {[]string{"sites", "extra"}, 2, "extra"},
		"bad flag value":    {[]string{"run", "--n", "x"}, 2, "--n"},
		"bad count":         {[]string{"run", "--n", "-5"}, 2, "--n"},
		"bad scheme":        {[]string{"run", "--scheme", "foo"}, 2, "--scheme"},
		"bad detector":      {[]string{"run", "--detector", "foo"}, 2, "--detector"},
		"bad cores":         {[]string{"run", "--cores", "-5"}, 2, "--cores"},
		"unknown app":       {[]string{"run", "--app", "nosuch"}, 2, "nosuch"},
		"bad param":         {[]string{"run", "--app", "poisson", "--param", "q=1"}, 2, "q"},
		"backward node set": {[]string{"run", "--nodes", "alpha-[4-1]"}, 2, "goes backwards"},
		"empty nodes":       {[]string{"run", "--nodes", ""}, 2, "names no node"},
		"comma nodes":       {[]string{"run", "--nodes", " , "}, 2, "names no node"},
		"tokens with async": {[]string{"run", "--detector", "tokens", "--scheme", "async"}, 2, "does not run with --scheme async"},
		"bad what-if":       {[]string{"predict", "--net", "ethernet=fast"}, 2, "--net"},
		"negative shared":   {[]string{"predict", "--shared-cores", "-1"}, 2, "--shared-cores -1"},
		"unknown shell":     {[]string{"completion", "tcsh"}, 2, "tcsh"},
		"unknown topic":     {[]string{"help", "nosuch"}, 2, "nosuch"},
		"help topic":        {[]string{"help", "run"}, 0, "Examples:"},
		"app typo":          {[]string{"run", "--app", "poison"}, 2, "did you mean poisson?"},
		"own app":           {[]string{"run", "--app", "laplace"}, 2, "gridapp.Register"},
		"param typo":        {[]string{"run", "--app", "poisson", "--param", "blcks=2x1x1"}, 2, "did you mean blocks?"},
		"scheme typo":       {[]string{"run", "--scheme", "asyn"}, 2, "did you mean async?"},
		"version flag":      {[]string{"--version"}, 0, "gridtui "},
		"help has example":  {[]string{"run", "--help"}, 0, "Examples:"},
		"cores help":        {[]string{"run", "--help"}, 0, "each host's cores; default: the job's, 1 for the default job)\n"},
		"predict cores":     {[]string{"predict", "--help"}, 0, "each host's cores; default: the job's)\n"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			root := newRootCmd()
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(tc.args)
			err := root.Execute()
			if code := exitCode(err); code != tc.code {
				t.Errorf("gridtui %v: exit %d (%v), want %d", tc.args, code, err, tc.code)
			}
			if err != nil {
				out.WriteString(err.Error())
			}
			if !strings.Contains(out.String(), tc.out) {
				t.Errorf("gridtui %v: output lacks %q:\n%s", tc.args, tc.out, out.String())
			}
		})
	}
}

// TestHelpHidesWorker checks that the internal worker command is not listed
// and that every listed command's help shows examples.
func TestHelpHidesWorker(t *testing.T) {
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\n  worker ") {
		t.Errorf("help lists the worker command:\n%s", out.String())
	}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" && c.Example == "" {
			t.Errorf("gridtui %s has no examples", c.Name())
		}
	}
}
