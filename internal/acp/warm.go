package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// warm has the SDK's codecs built for the messages of a first session and
// its first prompt: the answer to session/new (its modes and config
// options), the prompt request, and the session updates that follow. The
// SDK encodes and decodes by reflection, which builds a codec for each
// type the first time it meets it, 0.1–0.3 ms each on the way to the
// user's first word; run from the goroutine that built the agent, while
// the client has not asked yet, it costs the user nothing. What it
// encodes is sent nowhere.
func (s *server) warm() {
	ss := &session{id: "warm", view: newEventView(), effort: s.opts.ReasoningEffort}
	json.Marshal(sdk.NewSessionResponse{SessionId: "warm", Modes: s.modes(agent.SessionInfo{}), ConfigOptions: s.configOptions(ss)})
	var p sdk.PromptRequest
	json.Unmarshal([]byte(`{"sessionId":"warm","prompt":[{"type":"text","text":"hi"}]}`), &p)
	json.Marshal(sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn})
	for _, u := range []sdk.SessionUpdate{
		{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: s.commandList()}},
		{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: sdk.Ptr("warm")}},
	} {
		json.Marshal(sdk.SessionNotification{SessionId: "warm", Update: u})
	}
}
