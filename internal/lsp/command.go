package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The commands of workspace/executeCommand: the agent methods for clients
// that only speak plain LSP. Each takes the same object as its agent/*
// method as its one argument.
const (
	commandStartTurn  = "agent.startTurn"
	commandInterrupt  = "agent.interrupt"
	commandNewSession = "agent.newSession"
)

func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	argument := func(v any) error {
		if len(p.Arguments) == 0 {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes one argument", p.Command)
		}
		return decodeParams(p.Command, p.Arguments[0], v)
	}
	var result any
	var err error
	switch p.Command {
	case commandStartTurn:
		var args startTurnParams
		if err := argument(&args); err != nil {
			return nil, err
		}
		result, err = s.beginTurn(p.Command, args)
	case commandInterrupt:
		var args interruptParams
		if err := argument(&args); err != nil {
			return nil, err
		}
		result, err = s.interruptTurn(ctx, p.Command, args)
	case commandNewSession:
		var args newSessionParams
		if len(p.Arguments) > 0 {
			if err := argument(&args); err != nil {
				return nil, err
			}
		}
		result, err = s.createSession(args)
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q (this server has %s, %s and %s)",
			p.Command, commandStartTurn, commandInterrupt, commandNewSession)
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	return protocol.LSPAny(b), nil
}
