package app

import (
	"bytes"
	"encoding/json"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// helpCommands are the commands agent-ls help names, each as help takes
// it.
var helpCommands = [][]string{
	{"serve"}, {"acp"}, {"exec"}, {"sessions"}, {"rewind"}, {"demo"},
	{"config"}, {"sandbox"}, {"mcp"}, {"mcp", "login"}, {"mcp", "logout"}, {"version"},
}

// flagLine is a flag's line in help: two dashes for long names, a short
// form beside its long one, a one-letter flag alone with one dash.
var flagLine = regexp.MustCompile(`^  (-[a-zA-Z], )?--[a-z][a-z-]*(\[=[A-Z]+\]| [A-Z][A-Z=]*)?$|^  -[a-zA-Z]( [A-Z][A-Z=]*)?$`)

// TestHelpOnStdout: `agent-ls help CMD` and `agent-ls CMD --help` print
// the same help to stdout and exit 0; it lists every flag with two
// dashes, short ones beside their long form, within 80 columns.
func TestHelpOnStdout(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, cmd := range helpCommands {
		t.Run(strings.Join(cmd, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(append([]string{"help"}, cmd...), nil, &out, &errOut); code != 0 || errOut.Len() > 0 {
				t.Fatalf("help: exit %d, stderr %q", code, errOut.String())
			}
			var out2 bytes.Buffer
			if code := run(append(cmd, "--help"), nil, &out2, &errOut); code != 0 || errOut.Len() > 0 {
				t.Fatalf("--help: exit %d, stderr %q", code, errOut.String())
			}
			if out.String() != out2.String() {
				t.Errorf("help %s and %s --help differ:\n%s\n---\n%s", cmd, cmd, out.String(), out2.String())
			}
			checkHelp(t, out.String())
		})
	}
	t.Run("overview", func(t *testing.T) {
		var out, errOut bytes.Buffer
		if code := run([]string{"help"}, nil, &out, &errOut); code != 0 || errOut.Len() > 0 {
			t.Fatalf("exit %d, stderr %q", code, errOut.String())
		}
		checkHelp(t, out.String())
		for _, want := range []string{"  serve", "  acp", "  exec", "  sessions", "  rewind", "  demo", "  config ", "  config --check",
			"  config --import-codex", "  sandbox --", "  sandbox --explain", "  mcp list", "  mcp login|logout", "  version", "  help"} {
			if !strings.Contains(out.String(), "\n"+want) {
				t.Errorf("the overview does not name %q:\n%s", want, out.String())
			}
		}
	})
}

// checkHelp checks a help text's width and the form of its flag lines.
func checkHelp(t *testing.T, help string) {
	t.Helper()
	flags := false
	for _, line := range strings.Split(help, "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
		if line == "Flags:" {
			flags = true
			continue
		}
		if flags && strings.HasPrefix(line, "  -") && !flagLine.MatchString(line) {
			t.Errorf("flag line %q: want --long, -s, --long or -x, with the value in capitals", line)
		}
	}
}

// TestFlagErrorIsShort: a bad flag prints the problem and the usage line,
// not the whole help, and exits 2.
func TestFlagErrorIsShort(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, args := range [][]string{
		{"exec", "--bogus", "hi"}, {"--modle", "x"}, {"config", "--chek"}, {"sessions", "--prune"},
		{"demo", "--pace", "5"}, {"exec", "--stream-idle-timeout", "5", "hi"}, {"version", "extra"},
		{"demo", "extra"}, {"serve", "extra"}, {"sessions", "extra"}, {"help", "nonsense"}, {"nonsense"},
		{"mcp", "logout"}, {"exec", "--sandbox", "bogus", "hi"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errOut)
			lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
			if code != 2 || out.Len() > 0 || len(lines) > 3 || !strings.Contains(errOut.String(), "Usage: agent-ls") {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2, the problem and the usage line", code, out.String(), errOut.String())
			}
		})
	}
}

// TestDurationsTakeUnits: a duration flag takes a unit, and a number
// without one is an error that says so, never milliseconds.
func TestDurationsTakeUnits(t *testing.T) {
	for v, want := range map[string]string{"5": "has no unit", "1.5": "has no unit", "soon": "give a duration", "0s": "positive"} {
		if _, err := parseDuration(v, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseDuration(%q) = %v, want an error saying %q", v, err, want)
		}
	}
	if d, err := parseDuration("90s", false); err != nil || d.Seconds() != 90 {
		t.Errorf("parseDuration(90s) = %v, %v", d, err)
	}
	// Where zero means none (demo --pace), "0" needs no unit; a negative
	// duration is still refused.
	if d, err := parseDuration("0", true); err != nil || d != 0 {
		t.Errorf("parseDuration(0, zero allowed) = %v, %v", d, err)
	}
	if _, err := parseDuration("-1s", true); err == nil {
		t.Error("parseDuration(-1s, zero allowed) took a negative duration")
	}
	// The variable's name says milliseconds.
	if d, err := parseEnvIdleTimeout("5000"); err != nil || d.Seconds() != 5 {
		t.Errorf("parseEnvIdleTimeout(5000) = %v, %v", d, err)
	}
}

// TestVersionJSON: version --json prints the version, commit, date, Go
// version and the protocol's version, the one initialize answers.
func TestVersionJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"version", "--json"}, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var v map[string]string
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	for _, k := range []string{"version", "commit", "date", "go", "protocol"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %q in %s", k, out.String())
		}
	}
	if v["protocol"] != "1.1" || v["go"] != runtime.Version() || v["version"] != version {
		t.Errorf("version --json = %s", out.String())
	}
}
