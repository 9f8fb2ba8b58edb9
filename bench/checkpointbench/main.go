// Command checkpointbench measures what rewind's checkpoints cost: a
// workspace of 10,000 files (beside an ignored build folder and a
// node_modules that are left out), snapshotted before and after each
// command as a turn does, once as a plain folder and once as a committed
// git checkout. It prints the first snapshot (which copies every kept
// file once, or in a git checkout only what git's index does not hold),
// the cost per turn of one command that changes a few files (two
// snapshots), the disk the store then uses, and the first snapshot of a
// second session of the same folder, which links the contents the first
// kept instead of reading and copying them again (-no-reuse: as if it
// found no earlier snapshot).
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/checkpoint"
)

func main() {
	files := flag.Int("files", 10000, "files in the workspace (kept ones)")
	turns := flag.Int("turns", 10, "turns to time")
	noReuse := flag.Bool("no-reuse", false, "give the second session no state folder to find the first's snapshot in (each session reads and copies the workspace again)")
	flag.Parse()
	fmt.Println("   a folder that is no git repository (every kept file is copied once):")
	bench(*files, *turns, false, !*noReuse)
	if _, err := exec.LookPath("git"); err == nil {
		fmt.Println("   the same folder as a committed git checkout (git's objects hold the clean files):")
		bench(*files, *turns, true, !*noReuse)
	}
}

// bench times the snapshots of a fresh workspace of files files, a git
// checkout when git, over turns turns, and then the first snapshot of a
// second session of the same folder (finding the first's kept snapshot
// in the state folder when reuse).
func bench(files, turns int, git, reuse bool) {
	tmp, err := os.MkdirTemp("", "checkpointbench-*")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ws, state := filepath.Join(tmp, "ws"), filepath.Join(tmp, "state")
	wsBytes := makeWorkspace(ws, files)
	if git {
		cmd := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.name=b -c user.email=b@b commit -qm init")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("git: %v: %s", err, out)
		}
	}
	opts := checkpoint.TrackerOptions{}
	if reuse {
		opts.StateDir = state
	}
	store := filepath.Join(state, "first.checkpoints")
	tr := checkpoint.NewTrackerWith(checkpoint.Open(store), []string{ws}, opts)
	ctx := context.Background()

	snap, first, cpu := timed(func() checkpoint.Snapshot { return tr.Snapshot(ctx) })
	fmt.Printf("     workspace: %d kept files, %.1f MB (plus a 50 MB ignored build folder and 2,000 files in node_modules, left out)\n", len(snap.Files), float64(wsBytes)/1e6)
	fmt.Printf("     first session's first snapshot: %v (CPU %v), store %.1f MB\n", first.Round(time.Millisecond), cpu.Round(time.Millisecond), float64(du(store))/1e6)

	per := runTurns(ctx, tr, ws, turns)
	slices.Sort(per)
	fmt.Printf("     per turn with one command (snapshot before + after, 6 files changed): median %v, p90 %v\n",
		per[len(per)/2].Round(100*time.Microsecond), per[len(per)*9/10].Round(100*time.Microsecond))
	fmt.Printf("     store on disk after %d turns: %.1f MB (%.0f%% of the kept files' size)\n", turns, float64(du(store))/1e6, 100*float64(du(store))/float64(wsBytes))
	tr.Close()

	second := filepath.Join(state, "second.checkpoints")
	tr2 := checkpoint.NewTrackerWith(checkpoint.Open(second), []string{ws}, opts)
	snap2, wall2, cpu2 := timed(func() checkpoint.Snapshot { return tr2.Snapshot(ctx) })
	tr2.Close()
	fresh := du(store, second) - du(store)
	fmt.Printf("     second session's first snapshot (%d files): %v (CPU %v), new on disk %.1f MB (store %.1f MB, hard links counted once)\n",
		len(snap2.Files), wall2.Round(time.Millisecond), cpu2.Round(time.Millisecond), float64(fresh)/1e6, float64(du(second))/1e6)
}

// timed runs f and returns its result, its wall time and the CPU time
// the process spent meanwhile (all threads: the walk runs on several).
func timed(f func() checkpoint.Snapshot) (checkpoint.Snapshot, time.Duration, time.Duration) {
	c0, start := stats.SelfCPU(), time.Now()
	snap := f()
	return snap, time.Since(start), stats.SelfCPU() - c0
}

// runTurns times turns turns of one command that rewrites 5 files and
// adds one, snapshotted before and after.
func runTurns(ctx context.Context, tr *checkpoint.Tracker, ws string, turns int) []time.Duration {
	var per []time.Duration
	for turn := range turns {
		start := time.Now()
		before := tr.Snapshot(ctx)
		for i := range 5 {
			p := filepath.Join(ws, fmt.Sprintf("pkg%03d", (turn*7+i)%100), fmt.Sprintf("f%03d.go", i))
			must(os.WriteFile(p, []byte(fmt.Sprintf("package p // turn %d\n%s", turn, strings.Repeat("x", 1500))), 0o644))
		}
		must(os.WriteFile(filepath.Join(ws, fmt.Sprintf("new%d.txt", turn)), []byte("new\n"), 0o644))
		changes, _ := checkpoint.Diff(before, tr.Snapshot(ctx))
		tr.Keep(ctx, changes)
		per = append(per, time.Since(start))
		if len(changes) != 6 {
			log.Fatalf("turn %d: %d changes found, want 6", turn, len(changes))
		}
		for _, c := range changes {
			if c.Existed && c.Before.Sum == "" {
				log.Fatalf("turn %d: %s: the former content was not kept: %s", turn, c.Path, c.Before.Lost)
			}
		}
	}
	return per
}

// makeWorkspace writes n source files of about 2 KB in 100 folders, a
// .gitignore'd build folder of 50 MB and a node_modules of 2,000 files;
// it returns the kept files' bytes.
func makeWorkspace(ws string, n int) int64 {
	var total int64
	for i := range n {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", i%100))
		must(os.MkdirAll(dir, 0o755))
		data := []byte(fmt.Sprintf("package p // %d\n%s", i, strings.Repeat("y", 2000)))
		must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", i/100)), data, 0o644))
		total += int64(len(data))
	}
	must(os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("build/\n"), 0o644))
	total += int64(len("build/\n"))
	must(os.MkdirAll(filepath.Join(ws, "build"), 0o755))
	for i := range 50 {
		must(os.WriteFile(filepath.Join(ws, "build", fmt.Sprintf("o%d.bin", i)), make([]byte, 1<<20), 0o644))
	}
	for i := range 2000 {
		dir := filepath.Join(ws, "node_modules", fmt.Sprintf("m%d", i%50))
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, fmt.Sprintf("i%d.js", i)), []byte("module.exports = 1\n"), 0o644))
	}
	return total
}

// du is the disk space the files below dirs take, in bytes, a file
// with several links (in one store or two) counted once.
func du(dirs ...string) int64 {
	var n int64
	seen := map[fileID]bool{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					id, ok := idOf(fi)
					if ok && seen[id] {
						return nil
					}
					seen[id] = ok
					n += diskSize(fi)
				}
			}
			return nil
		})
	}
	return n
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
