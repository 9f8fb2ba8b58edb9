// Command nullagent is the least an ACP agent can do for acpbench's
// "spawn → first chunk": a Go program of the standard library alone that
// answers initialize and session/new, and for session/prompt makes one
// streaming request to the model (POST $OPENAI_BASE_URL/responses), sends
// the first text delta as an agent_message_chunk and ends the turn. What
// acpbench measures for it is the cost of the harness, the process start
// of a small Go binary and one model request: the floor under any agent's
// figure on the same machine.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`+"\n", m.ID)
		case "session/new":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s-1"}}`+"\n", m.ID)
		case "session/prompt":
			text, err := firstDelta()
			if err != nil {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`+"\n", m.ID, err.Error())
				break
			}
			chunk, _ := json.Marshal(text)
			fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%s}}}}`+"\n", chunk)
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`+"\n", m.ID)
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", m.ID)
		}
		out.Flush()
	}
}

// firstDelta asks the model for an answer and returns its first text
// delta.
func firstDelta() (string, error) {
	body := `{"model":"gpt-5-codex","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"say hello"}]}]}`
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(os.Getenv("OPENAI_BASE_URL"), "/")+"/responses", bytes.NewReader([]byte(body)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
		}
		if json.Unmarshal([]byte(data), &ev) == nil && ev.Type == "response.output_text.delta" {
			return ev.Delta, nil
		}
	}
	return "", fmt.Errorf("the model's stream ended without text (status %d)", res.StatusCode)
}
