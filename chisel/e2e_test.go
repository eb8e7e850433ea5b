package main

// End to end, locally and for real (run by chisel/test.sh with CFSCALE_CHISEL_E2E=1): a
// throw-away PostgreSQL (scripts/pg-cluster.sh), the server built from this module in front
// of it with VCAP_SERVICES naming it as results-db, and the real chisel client built from the
// same module. psql through the tunnel works with the right auth and fingerprint; it does
// NOT work without credentials, with a wrong password, with a wrong fingerprint, or to a
// remote outside the ACL (the same database under another name, or another port that really
// serves it). Refusal is proven by psql, never by the client's exit code: chisel's client
// exits 0 even when auth fails (docs/cf-platform.md §6). Ports: range `chisel` of ports.json.

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	connectWait = 10 * time.Second // the good tunnel must work within this
	refuseWait  = 4 * time.Second  // a refused tunnel must carry nothing for this long
)

type e2e struct {
	t          *testing.T
	work       string
	pgPass     string
	serverPort int
	fromPort   int
	toPort     int
	used       map[int]bool
}

func TestEndToEnd(t *testing.T) {
	if os.Getenv("CFSCALE_CHISEL_E2E") != "1" {
		t.Skip("set CFSCALE_CHISEL_E2E=1 (chisel/test.sh does)")
	}
	// Not t.TempDir(): its parent is private, and the cluster in it runs as postgres when we are root.
	work, err := os.MkdirTemp("", "cfscale-chisel-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &e2e{t: t, work: work, used: map[int]bool{}}
	e.fromPort, e.toPort = portRange(t, "chisel")
	bin := filepath.Join(e.work, "bin")
	e.run(nil, "go", "build", "-trimpath", "-o", filepath.Join(bin, "chisel-server"), ".")
	e.run(nil, "go", "build", "-trimpath", "-o", filepath.Join(bin, "chisel"), "github.com/jpillora/chisel")

	pgPort := e.freePort()
	pgDir := filepath.Join(e.work, "pg")
	pgURL := e.run(nil, "../scripts/pg-cluster.sh", "start", "--dir", pgDir, "--port", fmt.Sprint(pgPort))
	t.Cleanup(func() { _ = exec.Command("../scripts/pg-cluster.sh", "stop", "--dir", pgDir).Run() })
	pass, err := os.ReadFile(filepath.Join(pgDir, "password"))
	if err != nil {
		t.Fatal(err)
	}
	e.pgPass = strings.TrimSpace(string(pass))

	// The server refuses to start without credentials, with one line.
	out, err := command([]string{"CHISEL_KEY=x", "VCAP_SERVICES={}"}, filepath.Join(bin, "chisel-server")).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if err == nil || !strings.HasPrefix(msg, "chisel-server: authentication is mandatory") || strings.Contains(msg, "\n") {
		t.Fatalf("server without credentials: want a one-line refusal and a failure, got %v: %q", err, msg)
	}

	user, password, seed := "tunnel", fmt.Sprintf("pw-%d", rand.Int63()), fmt.Sprintf("seed-%d", rand.Int63())
	fp := e.run([]string{"CHISEL_KEY=" + seed}, filepath.Join(bin, "chisel-server"), "fingerprint")
	e.serverPort = e.freePort()
	vcap := fmt.Sprintf(`{"postgres":[{"name":"results-db","label":"postgres","tags":["postgres"],"credentials":{"uri":%q}}]}`, pgURL)
	serverLog := filepath.Join(e.work, "server.log")
	e.background(serverLog, command([]string{fmt.Sprintf("PORT=%d", e.serverPort), "HOST=127.0.0.1",
		"CHISEL_AUTH=" + user + ":" + password, "CHISEL_KEY=" + seed, "VCAP_SERVICES=" + vcap}, filepath.Join(bin, "chisel-server")))
	e.waitHTTP(fmt.Sprintf("http://127.0.0.1:%d/health", e.serverPort), serverLog)
	logText, _ := os.ReadFile(serverLog)
	if !strings.Contains(string(logText), "fingerprint "+fp) {
		t.Fatalf("server log lacks the fingerprint %s", fp)
	}
	if strings.Contains(string(logText), password) {
		t.Fatal("server log shows the password")
	}

	otherPort := e.freePort()
	e.forward(otherPort, pgPort)
	if !e.eventually(5*time.Second, func() bool { return e.psqlOK(otherPort) }) {
		t.Fatalf("the forwarder on %d does not reach PostgreSQL", otherPort)
	}

	client := filepath.Join(bin, "chisel")
	pg := fmt.Sprintf("127.0.0.1:%d", pgPort)
	// The client's credentials in its environment (AUTH), never in argv, as scripts/cf/tunnel.js runs it.
	auth := user + ":" + password
	e.expectTunnel(client, "right auth and fingerprint", pg, auth, "--fingerprint", fp)
	e.expectRefused(client, "no credentials", pg, "", "--fingerprint", fp)
	e.expectRefused(client, "wrong password", pg, user+":wrong", "--fingerprint", fp)
	e.expectRefused(client, "wrong fingerprint", pg, auth, "--fingerprint", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	e.expectRefused(client, "another port outside the ACL (it serves PostgreSQL)", fmt.Sprintf("127.0.0.1:%d", otherPort), auth, "--fingerprint", fp)
	e.expectRefused(client, "the same database under another name (anchored ACL)", fmt.Sprintf("localhost:%d", pgPort), auth, "--fingerprint", fp)
}

// portRange is range name of ../ports.json, the repository's one table of port ranges.
func portRange(t *testing.T, name string) (int, int) {
	raw, err := os.ReadFile("../ports.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Ranges map[string]struct{ Ports string } `json:"ranges"`
	}
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var from, to int
	if _, err := fmt.Sscanf(table.Ranges[name].Ports, "%d-%d", &from, &to); err != nil {
		t.Fatalf("ports.json: range %q: %v", name, err)
	}
	return from, to
}

// command is name with args, its environment ours plus env (NAME=value).
func command(env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = append(os.Environ(), env...)
	return c
}

// run runs name to its end and returns its trimmed stdout; a failure ends the test.
func (e *e2e) run(env []string, name string, args ...string) string {
	c := command(env, name, args...)
	c.Stderr = os.Stderr
	out, err := c.Output()
	if err != nil {
		e.t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// background starts c with its output in logFile; it is killed when the test ends.
func (e *e2e) background(logFile string, c *exec.Cmd) *exec.Cmd {
	f, err := os.Create(logFile)
	if err != nil {
		e.t.Fatal(err)
	}
	c.Stdout, c.Stderr = f, f
	if err := c.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait(); f.Close() })
	return c
}

func (e *e2e) freePort() int {
	for i := 0; i < 100; i++ {
		p := e.fromPort + rand.Intn(e.toPort-e.fromPort+1)
		if e.used[p] {
			continue
		}
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			l.Close()
			e.used[p] = true
			return p
		}
	}
	e.t.Fatalf("no free port in %d-%d", e.fromPort, e.toPort)
	return 0
}

func (e *e2e) eventually(limit time.Duration, ok func() bool) bool {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return false
}

func (e *e2e) waitHTTP(url, logFile string) {
	if !e.eventually(10*time.Second, func() bool {
		r, err := http.Get(url)
		if err == nil {
			r.Body.Close()
		}
		return err == nil && r.StatusCode == 200
	}) {
		tail, _ := os.ReadFile(logFile)
		e.t.Fatalf("%s did not answer; server log: %s", url, tail)
	}
}

// psqlOK: SELECT 1 through 127.0.0.1:port answers 1 (the password in PGPASSWORD, not in argv).
func (e *e2e) psqlOK(port int) bool {
	c := exec.Command("psql", fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", port), "-Atqc", "SELECT 1")
	c.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=2", "PGPASSWORD="+e.pgPass)
	out, err := c.Output()
	return err == nil && strings.TrimSpace(string(out)) == "1"
}

// forward relays TCP from port from to port to (a second way to the same PostgreSQL).
func (e *e2e) forward(from, to int) {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", from))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", to))
				if err != nil {
					return
				}
				defer u.Close()
				go func() { _, _ = io.Copy(u, c) }()
				_, _ = io.Copy(c, u)
			}()
		}
	}()
}

// client starts the chisel client for localPort:remote with auth ("user:pass", "" for none)
// in its environment, AUTH; it is stopped when the case ends.
func (e *e2e) client(bin, name, remote, auth string, flags ...string) (int, func(), string) {
	local := e.freePort()
	logFile := filepath.Join(e.work, "client-"+strings.ReplaceAll(name, " ", "-")+".log")
	args := append([]string{"client", "--max-retry-count", "2"}, flags...)
	args = append(args, fmt.Sprintf("http://127.0.0.1:%d", e.serverPort), fmt.Sprintf("%d:%s", local, remote))
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "AUTH="+auth)
	c := e.background(logFile, cmd)
	return local, func() { _ = c.Process.Kill() }, logFile
}

func (e *e2e) expectTunnel(bin, name, remote, auth string, flags ...string) {
	local, stop, logFile := e.client(bin, name, remote, auth, flags...)
	defer stop()
	if !e.eventually(connectWait, func() bool { return e.psqlOK(local) }) {
		tail, _ := os.ReadFile(logFile)
		e.t.Fatalf("%s: no psql through the tunnel in %s; client log: %s", name, connectWait, tail)
	}
	e.t.Logf("ok: %s: psql SELECT 1 through the tunnel", name)
}

func (e *e2e) expectRefused(bin, name, remote, auth string, flags ...string) {
	local, stop, _ := e.client(bin, name, remote, auth, flags...)
	defer stop()
	if e.eventually(refuseWait, func() bool { return e.psqlOK(local) }) {
		e.t.Fatalf("%s: psql went through the tunnel, it must be refused", name)
	}
	e.t.Logf("ok: %s: refused", name)
}
