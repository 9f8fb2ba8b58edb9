package agent

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// TestUndoStoreStaysSmall: a session of 1,000 turns that each rewrite a
// 1 MB file keeps neither the contents in memory nor more than the
// latest turns' undo data.
func TestUndoStoreStaysSmall(t *testing.T) {
	u := newUndoStore(DefaultUndoTurns)
	defer u.close()
	content := bytes.Repeat([]byte("0123456789abcde\n"), 1<<16) // 1 MiB
	for i := range 1000 {
		var tf turnFiles
		before := append([]byte(fmt.Sprintf("turn %d\n", i)), content...)
		after := append([]byte(fmt.Sprintf("turn %d\n", i+1)), content...)
		tf.record("/w/big.txt", fileState{exists: true, content: before}, fileState{exists: true, content: after})
		if _, err := u.keep(fmt.Sprintf("t%d", i), &tf); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 64<<20 {
		t.Errorf("heap in use %d MB after 1,000 turns of 1 MB", ms.HeapInuse>>20)
	}
	if u.get("t899") != nil || u.get("t900") == nil || len(u.turns) != DefaultUndoTurns {
		t.Errorf("kept %d turns; t899 kept %v, t900 kept %v", len(u.turns), u.get("t899") != nil, u.get("t900") != nil)
	}
	ut := u.get("t999")
	b, err := ut.before(ut.files[0])
	if err != nil || !bytes.HasPrefix(b, []byte("turn 999\n")) || len(b) != len(content)+len("turn 999\n") {
		t.Errorf("before content of the last turn: %d bytes, %v", len(b), err)
	}
}
