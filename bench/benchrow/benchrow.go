// Package benchrow carries the benchmarks' summary: each bench program
// that measures a row of the summary table appends it, as one JSON line,
// to the file named by $AGENT_LS_BENCH_ROWS (bench/run.sh sets it), and
// bench/benchtable prints them all as one table at the end of the run.
// Without the variable, Emit does nothing: each program's own output is
// unchanged.
package benchrow

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agent-ls/agent-ls/bench/stats"
)

// EnvFile names the file the rows are appended to.
const EnvFile = "AGENT_LS_BENCH_ROWS"

// Row is one measurement of agent-ls beside its peer and its goal.
type Row struct {
	// Name is what was measured ("grep literal", "context: kernel").
	Name string `json:"row"`
	// Value is agent-ls's figure, in Unit ("ms", "MB", "/s").
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Peer names the tool compared with ("rg", "fd"; "" for none) and
	// PeerValue is its figure in the same unit (0: not measured).
	Peer      string  `json:"peer,omitempty"`
	PeerValue float64 `json:"peerValue,omitempty"`
	// Goal says what agent-ls holds to ("≤ 1.0x", "≤ 100 ms"), and
	// Verdict is "PASS" or "FAIL" against it ("" without a goal).
	Goal    string `json:"goal,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Load is the machine's 1-minute load average when the row was
	// measured (Emit fills it in).
	Load string `json:"load"`
}

// Verdict is "PASS" when ok, else "FAIL".
func Verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// Emit appends r to the file named by $AGENT_LS_BENCH_ROWS, with the load
// average of now; without the variable it does nothing. A failure to
// write is reported on stderr, never fatal: the row is still printed by
// the program itself.
func Emit(r Row) {
	name := os.Getenv(EnvFile)
	if name == "" {
		return
	}
	if r.Load == "" {
		r.Load = stats.LoadAvg(1)
	}
	b, err := json.Marshal(r)
	if err == nil {
		err = appendLine(name, b)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchrow: %s: %v\n", r.Name, err)
	}
}

func appendLine(name string, line []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read parses the rows of r, one JSON object a line, skipping blank
// lines.
func Read(r io.Reader) ([]Row, error) {
	var rows []Row
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var row Row
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			return rows, fmt.Errorf("line %d: %w", n, err)
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}
