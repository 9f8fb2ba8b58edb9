package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A store object replaced by a link (to a secret, say) or changed in
// place is never handed to a rewind; keeping the content again repairs
// it.
func TestStoreRefusesAReplacedObject(t *testing.T) {
	st := Open(t.TempDir())
	sum, err := st.Put([]byte("kept\n"))
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("secret\n"), 0o600)
	p := st.path(sum)
	for name, replace := range map[string]func() error{
		"link": func() error { return os.Symlink(secret, p) },
		"same-size link": func() error {
			os.WriteFile(secret, []byte("sec!\n"), 0o600)
			return os.Symlink(secret, p)
		},
		"folder":  func() error { return os.Mkdir(p, 0o700) },
		"changed": func() error { return os.WriteFile(p, []byte("KEPT\n"), 0o600) },
	} {
		os.RemoveAll(p)
		if err := replace(); err != nil {
			t.Fatal(err)
		}
		if data, err := st.Get(sum); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: Get = %q, %v; want ErrCorrupt", name, data, err)
		}
		if _, err := st.Put([]byte("kept\n")); err != nil {
			t.Errorf("%s: Put again: %v", name, err)
		}
		if data, err := st.Get(sum); err != nil || string(data) != "kept\n" {
			t.Errorf("%s: after Put again, Get = %q, %v", name, data, err)
		}
	}
	if data, err := os.ReadFile(secret); err != nil || len(data) == 0 {
		t.Errorf("the link's target was touched: %q, %v", data, err)
	}
}
