package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// codeRequestFailed is LSP's RequestFailed: the request was well formed
// but could not be carried out.
const codeRequestFailed jsonrpc2.Code = -32803

// decodeParams decodes a request's params into v, answering InvalidParams
// with a message that names the offending field.
func decodeParams(method string, params []byte, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: params are required", method)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s", method, describe(err))
	}
	return nil
}

// describe rewrites a JSON decoding error for the person reading it in an
// editor's log.
func describe(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return fmt.Sprintf("expected %s, got %s", jsonType(typeErr.Type), typeErr.Value)
		}
		return fmt.Sprintf("%s must be %s, not %s", typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
	}
	return err.Error()
}

func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// agentError maps the agent's errors to LSP error codes (protocol section
// 2): an unknown session is a bad parameter, a running turn is a request
// that cannot be carried out now.
func agentError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agent.ErrUnknownSession), errors.Is(err, agent.ErrImageInput):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.Is(err, agent.ErrTurnRunning):
		return jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	var rpcErr *jsonrpc2.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return jsonrpc2.NewError(codeRequestFailed, err.Error())
}
