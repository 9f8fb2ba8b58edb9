package tools

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A terminal device (here a pseudo-terminal's far end, which blocks a
// reader until someone types) is refused at once, not read.
func TestSpecialFilesDevice(t *testing.T) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no pseudo-terminals here:", err)
	}
	defer ptmx.Close()
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skip(err)
	}
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skip(err)
	}
	pts := fmt.Sprintf("/dev/pts/%d", n)
	env, _ := testEnv(t)
	for _, tool := range []struct {
		h    Handler
		args map[string]any
	}{
		{ReadFile{}, map[string]any{"file_path": pts}},
		{ViewImage{}, map[string]any{"path": pts}},
		{GrepFiles{}, map[string]any{"pattern": "x", "path": pts}},
	} {
		// A hung read ends when the terminal hangs up.
		out := returns(t, func() { ptmx.Close() }, func() Output { return callTool(t, tool.h, env, tool.args) })
		if !strings.Contains(out.Text, "character device") {
			t.Errorf("%s: output %+v", tool.h.Spec().Name, out)
		}
	}
}
