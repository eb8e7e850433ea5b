package main

// config.go — the server's settings, read once from the environment and validated.
//
// Every setting (default in brackets):
//   PORT                  listen port [8080]; CF sets it (docs/cf-platform.md §4)
//   HOST                  listen address [0.0.0.0]
//   CHISEL_AUTH           "user:pass" of the one tunnel user; or
//   CHISEL_AUTHFILE       a chisel users.json ({"user:pass": [...]}); its regexes are
//                         IGNORED: every user gets the results-db ACL below
//   CHISEL_KEY            secret seed of the server's SSH key (stable fingerprint); or
//   CHISEL_KEY_FILE       a PEM or chisel key file
//   RESULTS_SERVICE_NAME  binding of the results database in VCAP_SERVICES [results-db]
//   VCAP_SERVICES         the bindings (CF sets it; §4)
// One of CHISEL_AUTH/CHISEL_AUTHFILE and one of CHISEL_KEY/CHISEL_KEY_FILE are required:
// an open tunnel into the results database is never started.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

const (
	defaultPort        = "8080"
	defaultHost        = "0.0.0.0"
	defaultServiceName = "results-db"
)

// User is one tunnel user.
type User struct {
	Name, Pass string
}

// Config is the validated configuration.
type Config struct {
	Host, Port  string
	Users       []User
	KeySeed     string // CHISEL_KEY
	KeyFile     string // CHISEL_KEY_FILE
	ServiceName string
	Target      string // host:port of the results database, the only allowed remote
}

// ACL is the anchored regex of the one allowed remote. chisel matches user regexes with
// MatchString, unanchored (docs/cf-platform.md §6), so ^…$ and QuoteMeta matter:
// "db:5432" unanchored would also allow "db:54320" and "evil-db:5432".
func (c *Config) ACL() string {
	return "^" + regexp.QuoteMeta(c.Target) + "$"
}

// String is the effective configuration for the log, passwords masked.
func (c *Config) String() string {
	names := make([]string, 0, len(c.Users))
	for _, u := range c.Users {
		names = append(names, u.Name+":****")
	}
	key := "CHISEL_KEY (seed)"
	if c.KeyFile != "" {
		key = "CHISEL_KEY_FILE " + c.KeyFile
	}
	return fmt.Sprintf("listen %s:%s, users [%s], key from %s, allowed remote %s (binding %q, acl %s), no reverse, no socks5",
		c.Host, c.Port, strings.Join(names, " "), key, c.Target, c.ServiceName, c.ACL())
}

// LoadConfig reads and validates the environment (getenv is os.Getenv outside tests).
func LoadConfig(getenv func(string) string) (*Config, error) {
	c := &Config{
		Host:        orDefault(getenv("HOST"), defaultHost),
		Port:        orDefault(getenv("PORT"), defaultPort),
		KeySeed:     getenv("CHISEL_KEY"),
		KeyFile:     getenv("CHISEL_KEY_FILE"),
		ServiceName: orDefault(getenv("RESULTS_SERVICE_NAME"), defaultServiceName),
	}
	if n, err := strconv.Atoi(c.Port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("PORT must be an integer from 1 to 65535, got %q", c.Port)
	}
	users, err := loadUsers(getenv("CHISEL_AUTH"), getenv("CHISEL_AUTHFILE"))
	if err != nil {
		return nil, err
	}
	c.Users = users
	if c.KeySeed == "" && c.KeyFile == "" {
		return nil, fmt.Errorf("CHISEL_KEY (a secret seed) or CHISEL_KEY_FILE is required, so clients can check the server fingerprint")
	}
	target, err := resultsTarget(getenv("VCAP_SERVICES"), c.ServiceName)
	if err != nil {
		return nil, err
	}
	c.Target = target
	return c, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func loadUsers(auth, authFile string) ([]User, error) {
	if auth != "" && authFile != "" {
		return nil, fmt.Errorf("set only one of CHISEL_AUTH and CHISEL_AUTHFILE")
	}
	if auth != "" {
		u, err := parseAuth(auth, "CHISEL_AUTH")
		if err != nil {
			return nil, err
		}
		return []User{u}, nil
	}
	if authFile == "" {
		return nil, fmt.Errorf("authentication is mandatory: set CHISEL_AUTH=user:pass or CHISEL_AUTHFILE")
	}
	b, err := os.ReadFile(authFile)
	if err != nil {
		return nil, fmt.Errorf("CHISEL_AUTHFILE: %v", err)
	}
	var raw map[string][]string
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("CHISEL_AUTHFILE %s: not a chisel users.json: %v", authFile, err)
	}
	users := make([]User, 0, len(raw))
	for auth := range raw {
		u, err := parseAuth(auth, "CHISEL_AUTHFILE")
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("CHISEL_AUTHFILE %s has no users", authFile)
	}
	sort.Slice(users, func(i, j int) bool { return users[i].Name < users[j].Name })
	return users, nil
}

func parseAuth(auth, from string) (User, error) {
	name, pass, ok := strings.Cut(auth, ":")
	if !ok || name == "" || pass == "" {
		return User{}, fmt.Errorf("%s must be user:pass with both parts non-empty", from)
	}
	return User{Name: name, Pass: pass}, nil
}

// binding is one entry of VCAP_SERVICES (docs/cf-platform.md §4).
type binding struct {
	Name        string                 `json:"name"`
	BindingName string                 `json:"binding_name"`
	Instance    string                 `json:"instance_name"`
	Credentials map[string]interface{} `json:"credentials"`
}

// resultsTarget finds the binding named name and returns its host:port: credentials.uri
// first, else hostname|host|hosts[0] and port (number or string), else jdbcUrl, as
// docs/bindings.md §2 says (the same host:port scripts/cf/tunnel-info.js asks for).
// The form is chisel's Remote.UserAddr(): host + ":" + port, exactly as clients name it.
func resultsTarget(vcap, name string) (string, error) {
	if vcap == "" {
		return "", fmt.Errorf("VCAP_SERVICES is not set: bind the %s service (cf bind-service chisel %s)", name, name)
	}
	var services map[string][]binding
	if err := json.Unmarshal([]byte(vcap), &services); err != nil {
		return "", fmt.Errorf("VCAP_SERVICES is not valid JSON: %v", err)
	}
	labels := make([]string, 0, len(services))
	for l := range services {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		for _, b := range services[l] {
			if b.Name == name || (b.Name == "" && (b.BindingName == name || b.Instance == name)) {
				return credentialsTarget(b.Credentials, name)
			}
		}
	}
	return "", fmt.Errorf("VCAP_SERVICES has no binding named %q (RESULTS_SERVICE_NAME)", name)
}

func credentialsTarget(cr map[string]interface{}, name string) (string, error) {
	if uri, ok := cr["uri"].(string); ok && uri != "" {
		return urlTarget(uri, name, "uri")
	}
	host, _ := cr["hostname"].(string)
	if host == "" {
		host, _ = cr["host"].(string)
	}
	if hosts, ok := cr["hosts"].([]interface{}); ok && host == "" && len(hosts) > 0 {
		host, _ = hosts[0].(string)
	}
	if jdbc, ok := cr["jdbcUrl"].(string); ok && host == "" && strings.HasPrefix(jdbc, "jdbc:") {
		return urlTarget(strings.TrimPrefix(jdbc, "jdbc:"), name, "jdbcUrl")
	}
	var port string
	switch p := cr["port"].(type) {
	case string:
		port = p
	case float64:
		port = strconv.Itoa(int(p))
	}
	if host == "" {
		return "", fmt.Errorf("binding %q: credentials have no host (uri, jdbcUrl or hostname|host|hosts)", name)
	}
	if n, err := strconv.Atoi(orDefault(port, "5432")); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("binding %q: credentials.port must be a port number, got %q", name, port)
	}
	return host + ":" + orDefault(port, "5432"), nil
}

func urlTarget(raw, name, field string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("binding %q: credentials.%s is not a URL with a host", name, field)
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	return u.Hostname() + ":" + port, nil
}
