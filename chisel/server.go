package main

// server.go — the chisel server, assembled from chisel's own packages (share/tunnel,
// share/cnet, share/settings, share/ccrypto) so the ACL holds for EVERY tunnel channel.
//
// Why not chserver.NewServer: up to v1.11.4 chisel checks a user's ACL only against the
// remotes the client declares at the handshake; the channels opened afterwards go
// anywhere (fixed upstream in v1.11.5, commit 44310b6; docs/cf-platform.md §6).
// The Go module proxy here serves v1.11.3 at the newest (and go.mod pins v1.10.1, the same
// packages with an older go line; README.md), so this file does what v1.11.5
// does: the declared remotes AND every channel's destination must match the anchored
// ACL. channel_acl_test.go proves it with a hand-made client. The wire protocol, the
// handshake and the tunnelling itself are chisel's (same client, same fingerprint).

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	chshare "github.com/jpillora/chisel/share"
	"github.com/jpillora/chisel/share/ccrypto"
	"github.com/jpillora/chisel/share/cio"
	"github.com/jpillora/chisel/share/cnet"
	"github.com/jpillora/chisel/share/settings"
	"github.com/jpillora/chisel/share/tunnel"
	"golang.org/x/crypto/ssh"
)

const (
	configTimeout = 10 * time.Second // chisel's CONFIG_TIMEOUT default
	keepAlive     = 25 * time.Second // chisel server's --keepalive default
)

// Server is one tunnel server.
type Server struct {
	cfg         *Config
	acl         *regexp.Regexp
	sshConfig   *ssh.ServerConfig
	fingerprint string
	log         *cio.Logger
	sessions    int32
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// NewServer builds the server for cfg: host key, password check, ACL.
func NewServer(cfg *Config) (*Server, error) {
	pemBytes, err := keyPEM(cfg)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot parse the key: %v", err)
	}
	s := &Server{cfg: cfg, acl: regexp.MustCompile(cfg.ACL()), fingerprint: ccrypto.FingerprintKey(signer.PublicKey()),
		log: cio.NewLogger("chisel-server")}
	s.log.Info = true
	s.sshConfig = &ssh.ServerConfig{
		ServerVersion:    "SSH-" + chshare.ProtocolVersion + "-server",
		PasswordCallback: s.authUser,
	}
	s.sshConfig.AddHostKey(signer)
	return s, nil
}

// GetFingerprint is the fingerprint clients pin with --fingerprint.
func (s *Server) GetFingerprint() string { return s.fingerprint }

func (s *Server) authUser(c ssh.ConnMetadata, password []byte) (*ssh.Permissions, error) {
	for _, u := range s.cfg.Users {
		if u.Name == c.User() && subtle.ConstantTimeCompare([]byte(u.Pass), password) == 1 {
			return nil, nil
		}
	}
	s.log.Infof("login failed for user %q", c.User())
	return nil, errors.New("invalid authentication")
}

// allowed: the address (host:port, optionally /tcp) is the one the ACL names.
func (s *Server) allowed(addr string) bool {
	hostPort, proto := settings.L4Proto(addr)
	return (proto == "" || proto == "tcp") && s.acl.MatchString(hostPort)
}

// ServeHTTP: chisel's WebSocket upgrade, else /health and /version like chisel.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.ToLower(r.Header.Get("Upgrade")) == "websocket" && r.Header.Get("Sec-WebSocket-Protocol") == chshare.ProtocolVersion {
		s.handleWebsocket(w, r)
		return
	}
	switch r.URL.Path {
	case "/health":
		w.Write([]byte("OK\n"))
	case "/version":
		w.Write([]byte(chshare.BuildVersion))
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) handleWebsocket(w http.ResponseWriter, req *http.Request) {
	l := s.log.Fork("session#%d", atomic.AddInt32(&s.sessions, 1))
	ws, err := upgrader.Upgrade(w, req, nil)
	if err != nil {
		return
	}
	sshConn, chans, reqs, err := ssh.NewServerConn(cnet.NewWebSocketConn(ws), s.sshConfig)
	if err != nil {
		l.Debugf("handshake failed: %s", err)
		return
	}
	defer sshConn.Close()
	var r *ssh.Request
	select {
	case r = <-reqs:
	case <-time.After(configTimeout):
		return
	}
	if r == nil || r.Type != "config" {
		return
	}
	c, err := settings.DecodeConfig(r.Payload)
	if err != nil {
		r.Reply(false, []byte("invalid config"))
		return
	}
	for _, remote := range c.Remotes {
		if remote.Reverse || remote.Socks || remote.RemoteProto == "udp" || !s.allowed(remote.Remote()) {
			l.Infof("user %s: access to '%s' denied", sshConn.User(), remote.UserAddr())
			r.Reply(false, []byte(fmt.Sprintf("access to '%s' denied", remote.UserAddr())))
			return
		}
	}
	r.Reply(true, nil)
	l.Infof("user %s connected from %s", sshConn.User(), req.RemoteAddr)
	t := tunnel.New(tunnel.Config{Logger: l, Inbound: false, Outbound: true, Socks: false, KeepAlive: keepAlive})
	if err := t.BindSSH(req.Context(), sshConn, reqs, s.filter(l, sshConn.User(), chans)); err != nil && !strings.HasSuffix(err.Error(), "EOF") {
		l.Debugf("closed: %s", err)
	}
}

// filter passes on the channels whose destination the ACL allows and rejects the rest.
func (s *Server) filter(l *cio.Logger, user string, in <-chan ssh.NewChannel) <-chan ssh.NewChannel {
	out := make(chan ssh.NewChannel)
	go func() {
		defer close(out)
		for ch := range in {
			addr := string(ch.ExtraData())
			if !s.allowed(addr) {
				l.Infof("user %s: channel to '%s' denied", user, addr)
				ch.Reject(ssh.Prohibited, fmt.Sprintf("access to '%s' denied", addr))
				continue
			}
			out <- ch
		}
	}()
	return out
}

// Start listens on cfg.Host:cfg.Port and serves until ctx ends.
func Start(ctx context.Context, cfg *Config) error {
	s, err := NewServer(cfg)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, cfg.Port))
	if err != nil {
		return err
	}
	fmt.Printf("chisel-server: fingerprint %s\n", s.GetFingerprint())
	fmt.Printf("chisel-server: listening on %s\n", l.Addr())
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	return nil
}
