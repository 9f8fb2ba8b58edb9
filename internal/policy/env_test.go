package policy

import (
	"slices"
	"strings"
	"testing"
)

// environ is the environment the policy tests start from.
var environ = []string{
	"HOME=/home/u", "PATH=/usr/bin:/bin", "USER=u", "LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm",
	"OPENAI_API_KEY=sk-1", "github_token=ghp", "Db_Password=hunter2", "AWS_SECRET_ACCESS_KEY=s",
	"AWS_REGION=eu", "EDITOR=vi", "GOPATH=/go", "A/API_KEY=x", "EDITOR=nano", "NOEQUALS",
}

func TestEnvPolicyEnviron(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    EnvPolicy
		want string
	}{
		{"zero value: all but the default excludes, last value wins",
			EnvPolicy{},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm AWS_REGION=eu EDITOR=nano GOPATH=/go"},
		{"inherit all explicitly",
			EnvPolicy{Inherit: InheritAll},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm AWS_REGION=eu EDITOR=nano GOPATH=/go"},
		{"core",
			EnvPolicy{Inherit: InheritCore},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm"},
		{"none",
			EnvPolicy{Inherit: InheritNone},
			""},
		{"none with set",
			EnvPolicy{Inherit: InheritNone, Set: map[string]string{"FOO": "1", "BAR": "2"}},
			"BAR=2 FOO=1"},
		{"ignore default excludes",
			EnvPolicy{Inherit: InheritAll, IgnoreDefaultExcludes: true},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm OPENAI_API_KEY=sk-1 github_token=ghp Db_Password=hunter2 AWS_SECRET_ACCESS_KEY=s AWS_REGION=eu EDITOR=nano GOPATH=/go A/API_KEY=x"},
		{"exclude, case-insensitive, ? and classes",
			EnvPolicy{Exclude: []string{"aws_*", "go?ath", "[ET]*"}},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C"},
		{"set overrides in place and adds in sorted order",
			EnvPolicy{Inherit: InheritCore, Set: map[string]string{"PATH": "/opt/bin", "Z": "z", "A": "a"}},
			"HOME=/home/u PATH=/opt/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm A=a Z=z"},
		{"set comes after the excludes: a set key survives",
			EnvPolicy{Set: map[string]string{"MY_TOKEN": "t"}, Exclude: []string{"MY_*"}},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm AWS_REGION=eu EDITOR=nano GOPATH=/go MY_TOKEN=t"},
		{"include_only comes last and filters set too",
			EnvPolicy{Set: map[string]string{"FOO": "1", "PATH": "/p"}, IncludeOnly: []string{"path", "home", "*_token"}},
			"HOME=/home/u PATH=/p"},
		{"include_only cannot bring back an excluded variable",
			EnvPolicy{IncludeOnly: []string{"*"}},
			"HOME=/home/u PATH=/usr/bin:/bin USER=u LANG=C.UTF-8 LC_ALL=C TERM=xterm AWS_REGION=eu EDITOR=nano GOPATH=/go"},
		{"include_only with ignore default excludes",
			EnvPolicy{IgnoreDefaultExcludes: true, IncludeOnly: []string{"*KEY*"}},
			"OPENAI_API_KEY=sk-1 AWS_SECRET_ACCESS_KEY=s A/API_KEY=x"},
		{"an unknown inherit inherits nothing",
			EnvPolicy{Inherit: "some", Set: map[string]string{"X": "1"}},
			"X=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.Environ(environ)
			if got == nil {
				t.Fatal("Environ returned nil, which exec.Cmd takes for the whole environment")
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("got  %s\nwant %s", s, tc.want)
			}
		})
	}
}

// TestEnvPolicyDefaultExcludes: every default pattern drops what it names
// in any case, with the name's parts anywhere.
func TestEnvPolicyDefaultExcludes(t *testing.T) {
	for _, name := range []string{"KEY", "api_key", "KeyRing", "SSH_AUTH_SECRET", "secretly", "TOKEN", "npm_token_x", "PASSWORD", "pgpassword", "x/y_key"} {
		if got := (EnvPolicy{}).Environ([]string{name + "=v"}); len(got) != 0 {
			t.Errorf("%s kept: %v", name, got)
		}
	}
	for _, name := range []string{"KY", "MONKEYS_OFF"} {
		got := (EnvPolicy{}).Environ([]string{name + "=v"})
		if want := !strings.Contains(strings.ToUpper(name), "KEY"); (len(got) == 1) != want {
			t.Errorf("%s: got %v", name, got)
		}
	}
}

func TestEnvPolicyWindowsDriveEntries(t *testing.T) {
	got := EnvPolicy{}.Environ([]string{"=C:=C:\\work", "=", "X=1"})
	if want := []string{"=C:=C:\\work", "X=1"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestEnvPolicyValidate(t *testing.T) {
	good := EnvPolicy{Inherit: InheritCore, Exclude: []string{"AWS_*", "[a-z]*"}, IncludeOnly: []string{"PATH"}, Set: map[string]string{"FOO": "1"}}
	if err := good.Validate(); err != nil {
		t.Errorf("good policy: %v", err)
	}
	if err := (EnvPolicy{}).Validate(); err != nil {
		t.Errorf("zero policy: %v", err)
	}
	bad := EnvPolicy{Inherit: "everything", Exclude: []string{"[", ""}, IncludeOnly: []string{"a\\"}, Set: map[string]string{"A=B": "1", "": "2", "C": "x\x00"}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("bad policy accepted")
	}
	for _, want := range []string{
		`unknown shell environment inherit "everything" (use all, core or none)`,
		`shell environment exclude: bad pattern "["`,
		`shell environment exclude: bad pattern ""`,
		`shell environment include_only: bad pattern "a\\"`,
		`shell environment set: bad variable name "A=B"`,
		`shell environment set: bad variable name ""`,
		`shell environment set: the value of C holds a NUL byte`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestParseEnvInherit(t *testing.T) {
	for s, want := range map[string]EnvInherit{"": InheritAll, "all": InheritAll, "core": InheritCore, "none": InheritNone} {
		if got, err := ParseEnvInherit(s); err != nil || got != want {
			t.Errorf("ParseEnvInherit(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseEnvInherit("All"); err == nil || err.Error() != `unknown shell environment inherit "All" (use all, core or none)` {
		t.Errorf("ParseEnvInherit(All): %v", err)
	}
}

func TestEnvPolicyClone(t *testing.T) {
	p := EnvPolicy{Exclude: []string{"A"}, IncludeOnly: []string{"B"}, Set: map[string]string{"C": "1"}}
	c := p.Clone()
	c.Exclude[0], c.IncludeOnly[0], c.Set["C"] = "x", "y", "2"
	if p.Exclude[0] != "A" || p.IncludeOnly[0] != "B" || p.Set["C"] != "1" {
		t.Errorf("the clone shares with the original: %+v", p)
	}
}
