package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// AuthDirName is the folder, in agent-ls's state folder, that keeps the
// OAuth tokens of url servers (see TokenStore).
const AuthDirName = "mcp-auth"

// TokenStore keeps what `agent-ls mcp login` got for url servers: one
// file per server, 0600 in a folder 0700, written atomically, named
// after the server's name and a digest of its name and of its url, so
// that a server whose url changed never gets the token of the old one.
// Tokens are never written to the config, the logs or the sessions.
type TokenStore struct {
	// Dir is the folder, $XDG_STATE_HOME/agent-ls/mcp-auth by default.
	Dir string
}

// authRecord is one server's stored authorization: the token, and what
// refreshing it takes (the client registered or configured, the token
// endpoint), for the server of that name and url only.
type authRecord struct {
	Server       string           `json:"server"`
	URL          string           `json:"url"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Scopes       []string         `json:"scopes,omitempty"`
	// Registered says the client was registered dynamically at login.
	Registered bool          `json:"registered,omitempty"`
	Token      *oauth2.Token `json:"token"`
	SavedAt    time.Time     `json:"saved_at"`
}

// config is the OAuth client configuration that refreshes the token.
func (r *authRecord) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:     r.ClientID,
		ClientSecret: r.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: r.TokenURL, AuthStyle: r.AuthStyle},
		Scopes:       r.Scopes,
	}
}

// digest is a short hex digest of s.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

// prefix is the start of the names of the files of the server name,
// whatever its url: the name as far as it is safe in a file name, then a
// digest of the whole name.
func (t TokenStore) prefix(name string) string {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
	if len(safe) > 40 {
		safe = safe[:40]
	}
	return safe + "-" + digest(name) + "-"
}

// path is the file of the server name at url.
func (t TokenStore) path(name, url string) string {
	return filepath.Join(t.Dir, t.prefix(name)+digest(name+"\x00"+url)+".json")
}

// load returns the record of the server name at url; nil when there is
// none.
func (t TokenStore) load(name, url string) (*authRecord, error) {
	if t.Dir == "" {
		return nil, nil
	}
	b, err := os.ReadFile(t.path(name, url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the stored authorization: %w", err)
	}
	var r authRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading the stored authorization %s: %w", t.path(name, url), err)
	}
	if r.Server != name || r.URL != url || r.Token == nil {
		return nil, nil
	}
	return &r, nil
}

// Has reports whether a token is stored for the server name at url.
func (t TokenStore) Has(name, url string) bool {
	r, err := t.load(name, url)
	return err == nil && r != nil
}

// save writes r atomically: a temporary file 0600 in the folder (made
// 0700), synced, then renamed over the server's file.
func (t TokenStore) save(r *authRecord) error {
	if t.Dir == "" {
		return errors.New("no folder to store the authorization in")
	}
	if err := os.MkdirAll(t.Dir, 0o700); err != nil {
		return fmt.Errorf("storing the authorization: %w", err)
	}
	// A folder made earlier by hand, or by an older umask, is narrowed.
	if err := os.Chmod(t.Dir, 0o700); err != nil {
		return fmt.Errorf("storing the authorization: %w", err)
	}
	r.SavedAt = time.Now().UTC()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("storing the authorization: %w", err)
	}
	f, err := os.CreateTemp(t.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("storing the authorization: %w", err)
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(append(b, '\n'))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, t.path(r.Server, r.URL))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("storing the authorization: %w", err)
	}
	return nil
}

// Remove deletes every stored authorization of the server name, for any
// url, and returns the files removed.
func (t TokenStore) Remove(name string) ([]string, error) {
	if t.Dir == "" {
		return nil, nil
	}
	matches, err := filepath.Glob(filepath.Join(t.Dir, t.prefix(name)+"*.json"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, m := range matches {
		var r authRecord
		if b, err := os.ReadFile(m); err == nil && json.Unmarshal(b, &r) == nil && r.Server != name {
			continue // another server's, whose name shares the prefix
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, m)
	}
	return removed, errors.Join(errs...)
}
