package acp

import (
	"errors"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// Submit: the fake runs no turns, queued or not.
func (f *fakeAgent) Submit(string, agent.TurnInput) (agent.Submitted, error) {
	return agent.Submitted{}, errors.New("no turns here")
}

func (f *fakeAgent) ClearQueue(string) error { return nil }

// Steer: the fake runs no turns to steer.
func (f *fakeAgent) Steer(string, agent.TurnInput, string) (agent.SteerResult, error) {
	return agent.SteerResult{}, errors.New("no turns here")
}
