package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAddAllowedDomain(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"no file", "", "[sandbox_workspace_write]\nallowed_domains = [\"pypi.org\"]\n"},
		{"no table", "# mine\nmodel = \"o3\" # keep\n", "# mine\nmodel = \"o3\" # keep\n\n[sandbox_workspace_write]\nallowed_domains = [\"pypi.org\"]\n"},
		{"table without the key", "[sandbox_workspace_write] # net\nnetwork = \"ask\"\n\n[tools]\nweb_search = true\n",
			"[sandbox_workspace_write] # net\nallowed_domains = [\"pypi.org\"]\nnetwork = \"ask\"\n\n[tools]\nweb_search = true\n"},
		{"existing array", "[sandbox_workspace_write]\nallowed_domains = [\"a.org\"] # list\n", "[sandbox_workspace_write]\nallowed_domains = [\"a.org\", \"pypi.org\"] # list\n"},
		{"empty array", "[sandbox_workspace_write]\nallowed_domains = []\n", "[sandbox_workspace_write]\nallowed_domains = [\"pypi.org\"]\n"},
		{"multi-line array", "[sandbox_workspace_write]\nallowed_domains = [\n  \"a.org\", # one ]\n  \"b.org\",\n]\n[x]\n",
			"[sandbox_workspace_write]\nallowed_domains = [\n  \"a.org\", # one ]\n  \"b.org\",\n \"pypi.org\"]\n[x]\n"},
		{"already there", "[sandbox_workspace_write]\nallowed_domains = [\"pypi.org\"]\n", "[sandbox_workspace_write]\nallowed_domains = [\"pypi.org\"]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if c.in != "" {
				os.WriteFile(path, []byte(c.in), 0o640)
			}
			if err := AddAllowedDomain(path, "pypi.org"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
			if _, err := os.Stat(path + ".lock"); err == nil {
				t.Error("the lock file was left behind")
			}
			if st, _ := os.Stat(path); c.in != "" && st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the file's own", st.Mode().Perm())
			}
		})
	}
}

func TestAddAllowedDomainFollowsSymlinkAndRefusesUnknownForms(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "agent-ls.toml")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("model = \"o3\"\n"), 0o600)
	link := filepath.Join(dir, "config.toml")
	os.Symlink(real, link)
	if err := AddAllowedDomain(link, "localhost:3000"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if got, _ := os.ReadFile(real); !allowedIn(got, "localhost:3000") {
		t.Errorf("the file the link names: %s", got)
	}
	inline := filepath.Join(dir, "inline.toml")
	text := "sandbox_workspace_write = { allowed_domains = [\"a.org\"] }\n"
	os.WriteFile(inline, []byte(text), 0o600)
	if err := AddAllowedDomain(inline, "pypi.org"); err == nil {
		t.Error("an inline table was edited blindly")
	}
	if got, _ := os.ReadFile(inline); string(got) != text {
		t.Errorf("a refused edit changed the file: %s", got)
	}
	ro := filepath.Join(dir, "ro")
	os.MkdirAll(ro, 0o500)
	if os.Geteuid() != 0 {
		if err := AddAllowedDomain(filepath.Join(ro, "config.toml"), "pypi.org"); err == nil {
			t.Error("an unwritable folder: no error")
		}
	}
}
