package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// The commands of workspace/executeCommand: the agent methods for clients
// that only speak plain LSP. Each takes the same object as its agent/*
// method as its one argument, optional where protocol section 7.1 says so.
const (
	commandStartTurn        = "agent.startTurn"
	commandInterrupt        = "agent.interrupt"
	commandNewSession       = "agent.newSession"
	commandShowConversation = "agent.showConversation"
	commandStopTerminals    = "agent.stopTerminals"
	commandResumeQueue      = "agent.resumeQueue"
)

var commands = []string{commandStartTurn, commandInterrupt, commandNewSession, commandShowConversation, commandStopTerminals, commandResumeQueue, commandRewind}

func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	argument := func(v any) error {
		if len(p.Arguments) == 0 {
			return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes one argument", p.Command)
		}
		return decodeParams(p.Command, p.Arguments[0], v)
	}
	// hasArgument: Neovim sends a command without arguments as
	// "arguments": null, or an empty list.
	hasArgument := len(p.Arguments) > 0 && string(p.Arguments[0]) != "null"
	var result any
	var err error
	switch p.Command {
	case commandStartTurn:
		var args startTurnParams
		if err := argument(&args); err != nil {
			return nil, err
		}
		result, err = s.beginTurn(ctx, p.Command, args, true)
	case commandInterrupt:
		// Agent: Stop stops the prompts that wait too.
		if !hasArgument {
			if a, aerr := s.theAgent(); aerr == nil {
				s.clearQueues(a, slices.Collect(maps.Keys(s.convs.Running())))
			}
			result, err = s.interruptAll(ctx)
			break
		}
		var args interruptParams
		if err := argument(&args); err != nil {
			return nil, err
		}
		if a, aerr := s.theAgent(); aerr == nil && args.SessionID != "" {
			s.clearQueues(a, []string{args.SessionID})
		}
		result, err = s.interruptTurn(ctx, p.Command, args)
	case commandNewSession:
		result, err = s.newSessionCommand(ctx, hasArgument, argument)
	case commandResumeQueue:
		result, err = s.resumeQueueCommand(ctx, hasArgument, argument)
	case commandRewind:
		result, err = s.rewindCommand(ctx, hasArgument, argument)
	case commandShowConversation:
		var args showConversationParams
		if hasArgument {
			if err := argument(&args); err != nil {
				return nil, err
			}
		}
		result, err = s.showConversation(ctx, args)
	case commandStopTerminals:
		var args stopTerminalsArgs
		if hasArgument {
			if err := argument(&args); err != nil {
				return nil, err
			}
		}
		result, err = s.stopTerminals(ctx, args)
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q (this server has %v)", p.Command, commands)
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

// resumeQueueCommand is agent.resumeQueue ({sessionId}, or none for the
// current conversation): Agent: Resume queue, for clients that have no
// agent/resumeQueue of their own.
func (s *server) resumeQueueCommand(ctx context.Context, hasArgument bool, argument func(any) error) (any, error) {
	var args struct {
		SessionID string `json:"sessionId"`
	}
	if hasArgument {
		if err := argument(&args); err != nil {
			return nil, err
		}
	}
	if args.SessionID == "" {
		args.SessionID = s.convs.Current()
	}
	if args.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no conversation to resume the queue of", commandResumeQueue)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	items, _, err := a.QueueOf(args.SessionID)
	if err != nil {
		return nil, queueError(err)
	}
	res, err := s.resumeQueue(a, args.SessionID)
	switch {
	case err != nil:
	case len(items) == 0:
		s.notice(ctx, protocol.MessageTypeInfo, "Agent: no queued prompts wait")
	case res.TurnID == "":
		s.notice(ctx, protocol.MessageTypeInfo, fmt.Sprintf("Agent: the %d queued prompt(s) run when the current turn ends", len(items)))
	}
	return res, err
}

// newSessionCommand is agent.newSession: a fresh conversation, made
// current.
func (s *server) newSessionCommand(ctx context.Context, hasArgument bool, argument func(any) error) (*sessionResult, error) {
	var args newSessionParams
	if hasArgument {
		if err := argument(&args); err != nil {
			return nil, err
		}
	}
	info, err := s.createSession(args)
	if err != nil {
		return nil, err
	}
	s.makeCurrentNew(info.SessionID)
	s.notice(ctx, protocol.MessageTypeInfo, "Agent: started a new conversation")
	return info, nil
}
