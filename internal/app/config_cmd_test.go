package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model"
)

// configRun runs agent-ls config with args under a user config file of
// text and the environment env (OPENAI_* unset unless given).
func configRun(t *testing.T, text string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	for _, k := range []string{model.EnvAPIKey, model.EnvBaseURL, envModel, envProfile, model.EnvWireAPI, envStreamIdleTimeout} {
		t.Setenv(k, env[k])
		if env[k] == "" {
			os.Unsetenv(k)
		}
	}
	if text != "" {
		if err := os.MkdirAll(filepath.Join(home, "agent-ls"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "agent-ls", "config.toml"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	code = run(append([]string{"config", "--cd", t.TempDir()}, args...), nil, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestConfigCheckChecksEveryProfile: config --check finds what exec -p
// NAME would refuse, for every profile, not only the one in force.
func TestConfigCheckChecksEveryProfile(t *testing.T) {
	text := "[profiles.good]\nmodel = \"m\"\n\n[profiles.local]\nmodel_provider = \"nope\"\n"
	code, _, stderr := configRun(t, text, nil, "--check")
	if code != 1 || !strings.Contains(stderr, "profile local") || !strings.Contains(stderr, `no provider "nope"`) || strings.Count(stderr, "error:") != 1 {
		t.Errorf("exit %d, stderr:\n%s\nwant the error of profile local, once", code, stderr)
	}
	code, stdout, stderr := configRun(t, "[profiles.good]\nmodel = \"m\"\n", nil, "--check")
	if code != 0 || !strings.Contains(stdout, "no errors") {
		t.Errorf("a good profile: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConfigAPIKeyOfALocalServer: the openai provider pointed at a
// server on this machine needs no key, and config does not warn that it
// is not set; pointed at OpenAI, it does.
func TestConfigAPIKeyOfALocalServer(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:11434/v1": "is not needed",
		"http://localhost:8080/v1":  "is not needed",
		"":                          "which is NOT set",
		"https://proxy.example/v1":  "which is NOT set",
	} {
		_, stdout, _ := configRun(t, "", map[string]string{model.EnvBaseURL: base})
		if !strings.Contains(stdout, want) {
			t.Errorf("OPENAI_BASE_URL=%q: config says\n%s\nwant %q", base, stdout, want)
		}
	}
	_, stdout, _ := configRun(t, "", map[string]string{model.EnvBaseURL: "http://127.0.0.1:1/v1", model.EnvAPIKey: "k"})
	if !strings.Contains(stdout, "which is set") {
		t.Errorf("with a key: %s", stdout)
	}
}
