package policy

import (
	"fmt"
	"path/filepath"
	"slices"
)

// WithFolders returns a copy of b whose workspace also holds folders: the
// workspace folders a client gives besides the project root (an editor's
// other folders, ACP's additionalDirectories, exec's --add-dir). They are
// inside the workspace for Contains; whether they may be written is the
// writable roots' business: the caller passes those it found writable
// (see [FolderReadOnly]) to [NewBoundary] as extra roots, where each keeps
// its own protected names. Relative and duplicate folders, and the root,
// are left out.
func (b *Boundary) WithFolders(folders []string) *Boundary {
	c := *b
	c.folders, c.realFolders = nil, nil
	for _, f := range folders {
		if !filepath.IsAbs(f) {
			continue
		}
		f = filepath.Clean(f)
		real, err := Resolve(f)
		if err != nil || real == b.realRoot || slices.Contains(c.realFolders, real) {
			continue
		}
		c.folders = append(c.folders, f)
		c.realFolders = append(c.realFolders, real)
	}
	return &c
}

// Folders are the workspace folders besides the project root, as given
// (see WithFolders).
func (b *Boundary) Folders() []string { return slices.Clone(b.folders) }

// FolderWritable reports whether folder (one of Folders) is writable in
// the session's mode: it is one of the writable roots.
func (b *Boundary) FolderWritable(folder string) bool {
	if b.mode == DangerFullAccess {
		return true
	}
	real, err := Resolve(filepath.Clean(folder))
	return err == nil && b.mode == WorkspaceWrite && slices.Contains(b.writable, real)
}

// FolderReadOnly says why a workspace folder beyond the first may not be
// a writable root, or "" when it may: it must be neither "/", nor the
// home folder home or one of its ancestors (they hold the user's shell
// start-up files and ~/.ssh), nor at or below one of agent-ls's own
// folders (its config, state or cache folder: own). Symlinks are
// resolved on both sides.
func FolderReadOnly(folder, home string, own []OwnPath) string {
	if !filepath.IsAbs(folder) {
		return fmt.Sprintf("the folder %s is not an absolute path", folder)
	}
	real, err := Resolve(filepath.Clean(folder))
	if err != nil {
		return fmt.Sprintf("the folder %s cannot be resolved: %v", folder, err)
	}
	if real == "/" {
		return fmt.Sprintf("the folder %s is the root of the file system", folder)
	}
	if HomeWorkspace(real, home) {
		return fmt.Sprintf("the folder %s is your home folder or holds it (your shell's start-up files, ~/.ssh, agent-ls's own config)", folder)
	}
	for _, o := range own {
		if !filepath.IsAbs(o.Path) {
			continue
		}
		r, err := Resolve(filepath.Clean(o.Path))
		if err != nil {
			continue
		}
		if within(r, real) {
			return fmt.Sprintf("the folder %s is inside %s, %s, which agent-ls trusts outside the sandbox", folder, o.Path, o.What)
		}
	}
	return ""
}
