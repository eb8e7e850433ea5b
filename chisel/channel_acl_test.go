package main

// Regression test for chisel's ACL being checked only at the handshake before v1.11.5
// (docs/cf-platform.md §6, chisel commit 44310b6): a client with valid
// credentials declares the allowed remote, then opens a tunnel channel to another
// address. The server must reject that channel.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	chshare "github.com/jpillora/chisel/share"
	"github.com/jpillora/chisel/share/cnet"
	"github.com/jpillora/chisel/share/settings"
	"golang.org/x/crypto/ssh"
)

// banner listens on 127.0.0.1:0 and writes text to every connection.
func banner(t *testing.T, text string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(text))
			c.Close()
		}
	}()
	return l.Addr().String()
}

func freeAddr(t *testing.T) (string, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	host, port, _ := net.SplitHostPort(l.Addr().String())
	return host, port
}

// startServer runs the server of this package for cfg until the test ends.
func startServer(t *testing.T, cfg *Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := Start(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	url := "http://" + cfg.Host + ":" + cfg.Port + "/health"
	for i := 0; i < 50; i++ {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("server did not start")
}

// rawSession is a hand-made chisel client: websocket + SSH + config request, so a
// test can open channels the real client never would.
func rawSession(t *testing.T, cfg *Config, user, pass string, declared string) ssh.Conn {
	t.Helper()
	c, ok, reply := tryConfig(t, cfg, user, pass, declared)
	if !ok {
		t.Fatalf("config request refused: %s", reply)
	}
	return c
}

// tryConfig connects and sends the config request; ok is the server's answer.
func tryConfig(t *testing.T, cfg *Config, user, pass string, declared string) (ssh.Conn, bool, string) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, Subprotocols: []string{chshare.ProtocolVersion}}
	ws, _, err := d.Dial("ws://"+cfg.Host+":"+cfg.Port+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := cnet.NewWebSocketConn(ws)
	sshConn, chans, reqs, err := ssh.NewClientConn(conn, "", &ssh.ClientConfig{
		User: user, Auth: []ssh.AuthMethod{ssh.Password(pass)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh handshake: %v", err)
	}
	t.Cleanup(func() { sshConn.Close() })
	go ssh.DiscardRequests(reqs)
	go func() {
		for ch := range chans {
			ch.Reject(ssh.Prohibited, "no")
		}
	}()
	remote, err := settings.DecodeRemote(declared)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(settings.Config{Version: chshare.BuildVersion, Remotes: settings.Remotes{remote}})
	ok, reply, err := sshConn.SendRequest("config", true, payload)
	if err != nil {
		t.Fatal(err)
	}
	return sshConn, ok, string(reply)
}

// dialThrough opens a tunnel channel to addr and returns what the far end wrote.
func dialThrough(c ssh.Conn, addr string) (string, error) {
	ch, reqs, err := c.OpenChannel("chisel", []byte(addr))
	if err != nil {
		return "", err
	}
	go ssh.DiscardRequests(reqs)
	defer ch.Close()
	done := make(chan struct{})
	var b []byte
	go func() { b, _ = io.ReadAll(ch); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		return "", fmt.Errorf("timeout")
	}
	return string(b), nil
}

func TestChannelOutsideTheACLIsRejected(t *testing.T) {
	allowed := banner(t, "allowed\n")
	forbidden := banner(t, "forbidden\n")
	host, port := freeAddr(t)
	cfg := &Config{Host: host, Port: port, Users: []User{{"tunnel", "pw"}}, KeySeed: "test", Target: allowed}
	startServer(t, cfg)
	c := rawSession(t, cfg, "tunnel", "pw", "0:"+allowed)

	got, err := dialThrough(c, allowed)
	if err != nil || got != "allowed\n" {
		t.Fatalf("the allowed remote: got %q, %v", got, err)
	}
	for _, addr := range []string{forbidden, forbidden + "/tcp", strings.Replace(allowed, "127.0.0.1", "localhost", 1), allowed + "/udp", "socks"} {
		got, err := dialThrough(c, addr)
		if err == nil {
			t.Errorf("channel to %q was accepted (read %q): the ACL must hold for every channel", addr, got)
		}
	}
}

func TestDeclaredRemotesOutsideTheACLAreRefused(t *testing.T) {
	host, port := freeAddr(t)
	// The handshake never dials the target, so it need not listen.
	cfg := &Config{Host: host, Port: port, Users: []User{{"tunnel", "pw"}}, KeySeed: "test", Target: "127.0.0.1:5432"}
	startServer(t, cfg)
	cases := map[string]bool{
		"15432:127.0.0.1:5432":     true,
		"15432:127.0.0.1:5432/udp": false,
		"R:15432:127.0.0.1:5432":   false, // reverse: off
		"1080:socks":               false, // SOCKS5: off
		"15432:localhost:5432":     false,
		"15432:127.0.0.1:54320":    false, // unanchored would allow it
		"15432:127.0.0.1:432":      false,
		"15432:127.0.0.2:5432":     false,
	}
	for declared, want := range cases {
		_, ok, reply := tryConfig(t, cfg, "tunnel", "pw", declared)
		if ok != want {
			t.Errorf("declared %q: accepted=%v (%s), want %v", declared, ok, reply, want)
		}
	}
}
