package acp

import (
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestAdditionalDirectories: the agent says it takes additionalDirectories;
// session/new gives them to the session as its folders, and /new keeps
// them; a relative one is refused.
func TestAdditionalDirectories(t *testing.T) {
	fa := &fakeAgent{}
	conn, _, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1})
	if err != nil {
		t.Fatal(err)
	}
	if init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Errorf("additionalDirectories is not advertised: %+v", init.AgentCapabilities.SessionCapabilities)
	}
	dirs := []string{"/w2", "/w3"}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", AdditionalDirectories: dirs, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fa.sessionFolders(); !slices.Equal(got, dirs) {
		t.Errorf("the session's folders are %v, want %v", got, dirs)
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/new")}}); err != nil {
		t.Fatal(err)
	}
	if got := fa.sessionFolders(); !slices.Equal(got, dirs) || fa.sessions != 2 {
		t.Errorf("after /new (%d sessions) the folders are %v, want %v", fa.sessions, got, dirs)
	}
	_, err = conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"rel"}, McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "additionalDirectories must be absolute") {
		t.Errorf("a relative directory: %v", err)
	}
}

func (f *fakeAgent) sessionFolders() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.folders)
}
