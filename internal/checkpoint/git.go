package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// gitRepo is the git repository a snapshot root lies in. A file whose
// content is a blob of the repository's index is not copied into the
// store: git's object database has it already, and Tracker.Keep copies
// it from there only when a command changed the file. It makes the
// first snapshot of a clean checkout cost a read of every file, not a
// copy of it.
type gitRepo struct {
	root   string // where git runs
	sha256 bool   // the repository's object format
	index  string // the index file

	mu        sync.Mutex
	blobs     map[string]bool // blob ids the index names
	indexStat os.FileInfo     // the index when blobs was read
}

// gitEnv is the environment git runs in: none of the caller's GIT_*
// variables (a GIT_DIR or GIT_INDEX_FILE would point it elsewhere), and
// no optional lock taken on the user's index.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0")
}

func gitCommand(ctx context.Context, dir string, args ...string) *exec.Cmd {
	// No fsmonitor hook: a workspace's config must not run a program.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false", "-C", dir}, args...)...)
	cmd.Env = gitEnv()
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// openGit returns the repository root lies in, or nil when there is none
// (or git is not installed).
func openGit(ctx context.Context, root string) *gitRepo {
	out, err := gitCommand(ctx, root, "rev-parse", "--show-object-format", "--absolute-git-dir").Output()
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || (lines[0] != "sha1" && lines[0] != "sha256") {
		return nil
	}
	return &gitRepo{root: root, sha256: lines[0] == "sha256", index: filepath.Join(lines[1], "index")}
}

// blobID is data's object id in the repository.
func (g *gitRepo) blobID(data []byte) string {
	var h hash.Hash
	if g.sha256 {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// has reports whether id is a blob the index names (and so one git's
// object database holds). The index is listed again only when its file
// changed.
func (g *gitRepo) has(ctx context.Context, id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	fi, err := os.Stat(g.index)
	if err != nil {
		return false
	}
	if g.indexStat == nil || !sameFile(g.indexStat, fi) {
		g.blobs, g.indexStat = g.listIndex(ctx), fi
	}
	return g.blobs[id]
}

func sameFile(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && inode(a) == inode(b)
}

// listIndex reads the blob ids of the index's entries below root.
func (g *gitRepo) listIndex(ctx context.Context) map[string]bool {
	out, err := gitCommand(ctx, g.root, "ls-files", "--stage", "-z").Output()
	if err != nil {
		return nil
	}
	blobs := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "MODE ID STAGE\tPATH"; gitlinks (160000) name commits.
		f := strings.Fields(string(rec[:bytes.IndexByte(append(rec, '\t'), '\t')]))
		if len(f) == 3 && f[0] != "160000" {
			blobs[f[1]] = true
		}
	}
	return blobs
}

// catFile reads the blobs ids names from git's object database, in one
// git process; a blob it cannot read is left out of the answer.
func (g *gitRepo) catFile(ctx context.Context, ids []string) (map[string][]byte, error) {
	cmd := gitCommand(ctx, g.root, "cat-file", "--batch")
	var in bytes.Buffer
	for _, id := range ids {
		in.WriteString(id + "\n")
	}
	cmd.Stdin = &in
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	out, rerr := readBatch(bufio.NewReader(stdout), g, len(ids))
	if werr := cmd.Wait(); rerr == nil && werr != nil {
		rerr = fmt.Errorf("git cat-file: %w", werr)
	}
	return out, rerr
}

// readBatch reads n answers of git cat-file --batch, keeping the blobs
// whose content matches their id.
func readBatch(r *bufio.Reader, g *gitRepo, n int) (map[string][]byte, error) {
	out := map[string][]byte{}
	for range n {
		head, err := r.ReadString('\n')
		if err != nil {
			return out, fmt.Errorf("git cat-file: %w", err)
		}
		f := strings.Fields(head) // "ID TYPE SIZE" or "ID missing"
		if len(f) != 3 {
			continue
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return out, errors.New("git cat-file: bad answer " + strconv.Quote(head))
		}
		data := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, data); err != nil {
			return out, fmt.Errorf("git cat-file: %w", err)
		}
		data = data[:size]
		if f[1] == "blob" && g.blobID(data) == f[0] {
			out[f[0]] = data
		}
	}
	return out, nil
}

// Keep copies into the store the contents changes name only by a git
// blob (Entry.Git), so that a checkpoint outlives the blob: the index
// may drop it and git may collect it. An entry whose blob is gone is
// marked Lost.
func (t *Tracker) Keep(ctx context.Context, changes []Change) {
	byRepo := map[*gitRepo][]string{}
	seen := map[string]bool{}
	for _, ch := range changes {
		for _, e := range []Entry{ch.Before, ch.After} {
			if e.Sum == "" && e.Git != "" && e.repo != nil && !seen[e.Git] {
				seen[e.Git] = true
				byRepo[e.repo] = append(byRepo[e.repo], e.Git)
			}
		}
	}
	sums, lost := map[string]Sum{}, map[string]string{}
	for repo, ids := range byRepo {
		blobs, err := repo.catFile(ctx, ids)
		for _, id := range ids {
			data, ok := blobs[id]
			if !ok {
				lost[id] = "its content was left in git's objects and is gone from them"
				if err != nil {
					lost[id] += " (" + err.Error() + ")"
				}
				continue
			}
			sum, err := t.store.Put(data)
			if err != nil {
				lost[id] = err.Error()
				continue
			}
			sums[id] = sum
		}
	}
	fix := func(e *Entry) {
		if e.Sum == "" && e.Git != "" {
			if sum, ok := sums[e.Git]; ok {
				e.Sum = sum
			} else {
				e.Lost = lost[e.Git]
			}
		}
	}
	for i := range changes {
		fix(&changes[i].Before)
		fix(&changes[i].After)
	}
}
