package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jpillora/chisel/share/settings"
)

const vcapURI = `{"postgres":[{"name":"node-db","credentials":{"uri":"postgres://u:p@other:5432/n"}},
 {"name":"results-db","label":"postgres","tags":["postgres"],"credentials":{"uri":"postgres://u:p@db.internal:6543/results"}}]}`

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func base() map[string]string {
	return map[string]string{"CHISEL_AUTH": "tunnel:s3cret", "CHISEL_KEY": "seed", "VCAP_SERVICES": vcapURI}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	authFile := filepath.Join(dir, "users.json")
	if err := os.WriteFile(authFile, []byte(`{"b:pw2":[""],"a:pw1":[".*"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		change  map[string]string
		target  string
		users   string
		wantErr string
	}{
		{name: "uri binding", target: "db.internal:6543", users: "tunnel"},
		{name: "no credentials", change: map[string]string{"CHISEL_AUTH": ""}, wantErr: "authentication is mandatory"},
		{name: "auth without password", change: map[string]string{"CHISEL_AUTH": "tunnel:"}, wantErr: "CHISEL_AUTH must be user:pass"},
		{name: "auth without colon", change: map[string]string{"CHISEL_AUTH": "tunnel"}, wantErr: "CHISEL_AUTH must be user:pass"},
		{name: "both auth kinds", change: map[string]string{"CHISEL_AUTHFILE": authFile}, wantErr: "only one of"},
		{name: "authfile, its regexes ignored", change: map[string]string{"CHISEL_AUTH": "", "CHISEL_AUTHFILE": authFile}, target: "db.internal:6543", users: "a,b"},
		{name: "missing authfile", change: map[string]string{"CHISEL_AUTH": "", "CHISEL_AUTHFILE": dir + "/nope"}, wantErr: "CHISEL_AUTHFILE"},
		{name: "no key", change: map[string]string{"CHISEL_KEY": ""}, wantErr: "CHISEL_KEY"},
		{name: "no VCAP_SERVICES", change: map[string]string{"VCAP_SERVICES": ""}, wantErr: "VCAP_SERVICES is not set"},
		{name: "bad VCAP_SERVICES", change: map[string]string{"VCAP_SERVICES": "{"}, wantErr: "not valid JSON"},
		{name: "binding absent", change: map[string]string{"RESULTS_SERVICE_NAME": "other-db"}, wantErr: `no binding named "other-db"`},
		{name: "other binding by name", change: map[string]string{"RESULTS_SERVICE_NAME": "node-db"}, target: "other:5432", users: "tunnel"},
		{name: "hostname and string port (docs example)", change: map[string]string{"VCAP_SERVICES": `{"p":[{"name":"results-db","credentials":{"hostname":"h","port":"5433"}}]}`}, target: "h:5433", users: "tunnel"},
		{name: "a9s host and numeric port", change: map[string]string{"VCAP_SERVICES": `{"a9s":[{"name":"results-db","credentials":{"host":"h2","port":5434}}]}`}, target: "h2:5434", users: "tunnel"},
		{name: "uri without port", change: map[string]string{"VCAP_SERVICES": `{"p":[{"name":"results-db","credentials":{"uri":"postgres://u:p@h3/db"}}]}`}, target: "h3:5432", users: "tunnel"},
		{name: "no host", change: map[string]string{"VCAP_SERVICES": `{"p":[{"name":"results-db","credentials":{"port":"1"}}]}`}, wantErr: "credentials have no host"},
		{name: "bad port", change: map[string]string{"VCAP_SERVICES": `{"p":[{"name":"results-db","credentials":{"host":"h","port":"x"}}]}`}, wantErr: "credentials.port"},
		{name: "bad PORT", change: map[string]string{"PORT": "99999"}, wantErr: "PORT must be"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			for k, v := range c.change {
				m[k] = v
			}
			cfg, err := LoadConfig(env(m))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("want error containing %q, got %v", c.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Target != c.target {
				t.Errorf("target %q, want %q", cfg.Target, c.target)
			}
			names := []string{}
			for _, u := range cfg.Users {
				names = append(names, u.Name)
			}
			if strings.Join(names, ",") != c.users {
				t.Errorf("users %v, want %s", names, c.users)
			}
			if strings.Contains(cfg.String(), "s3cret") || strings.Contains(cfg.String(), "pw1") {
				t.Errorf("password in the logged config: %s", cfg)
			}
		})
	}
}

// Regression guard for chisel's unanchored ACL (docs/cf-platform.md §6): checked
// with chisel's own User.HasAccess, as the server checks it.
func TestACLIsAnchored(t *testing.T) {
	cfg := &Config{Target: "db.internal:6543"}
	u := &settings.User{Addrs: []*regexp.Regexp{regexp.MustCompile(cfg.ACL())}}
	cases := map[string]bool{
		"db.internal:6543":      true,
		"db.internal:65430":     false,
		"xdb.internal:6543":     false,
		"dbxinternal:6543":      false, // the dot is literal
		"db.internal:6543x":     false,
		"127.0.0.1:6543":        false,
		"db.internal:22":        false,
		"R:db.internal:6543":    false,
		"db.internal:6543\nfoo": false,
	}
	for addr, want := range cases {
		if got := u.HasAccess(addr); got != want {
			t.Errorf("HasAccess(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestFingerprintIsStableAndMatchesServer(t *testing.T) {
	cfg, err := LoadConfig(env(base()))
	if err != nil {
		t.Fatal(err)
	}
	fp1, err := Fingerprint(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.GetFingerprint() != fp1 {
		t.Errorf("Fingerprint() %s differs from the server's %s", fp1, s.GetFingerprint())
	}
	cfg.KeySeed = "other seed"
	fp2, _ := Fingerprint(cfg)
	if fp2 == fp1 {
		t.Error("different seeds gave the same fingerprint")
	}
}
