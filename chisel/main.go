// Command chisel is cfscale's tunnel server: a chisel server (github.com/jpillora/chisel)
// pushed to Cloud Foundry with the results database bound, so a workstation reaches that
// database through the app's route (scripts/tunnel.sh). See README.md.
//
// Usage:
//
//	chisel                 run the server (settings from the environment, config.go)
//	chisel fingerprint     print the fingerprint of the configured key and exit
//
// Hardened relative to a plain `chisel server` (cloud-foundry-contracts.md §6):
// authentication is mandatory, every user may reach only the bound results database
// (anchored ACL), the key is stable so clients pin it with --fingerprint, and reverse
// tunnels and SOCKS5 stay off.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	chserver "github.com/jpillora/chisel/server"
	"github.com/jpillora/chisel/share/ccrypto"
	"golang.org/x/crypto/ssh"
)

func main() {
	if len(os.Args) > 1 {
		if os.Args[1] != "fingerprint" || len(os.Args) > 2 {
			fail(fmt.Errorf("unknown arguments %q (only: fingerprint)", os.Args[1:]))
		}
		// Only the key is needed: scripts/tunnel.sh computes the fingerprint to pin from
		// the CHISEL_KEY it read through the CF API.
		cfg := &Config{KeySeed: os.Getenv("CHISEL_KEY"), KeyFile: os.Getenv("CHISEL_KEY_FILE")}
		if cfg.KeySeed == "" && cfg.KeyFile == "" {
			fail(fmt.Errorf("CHISEL_KEY or CHISEL_KEY_FILE is required"))
		}
		fp, err := Fingerprint(cfg)
		if err != nil {
			fail(err)
		}
		fmt.Println(fp)
		return
	}
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		fail(err)
	}
	if err := run(cfg); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "chisel-server: %v\n", err)
	os.Exit(1)
}

// NewServer builds the chisel server for cfg: no Auth in chisel's Config (that would
// add a user allowed everywhere), the users added with the one anchored ACL instead.
func NewServer(cfg *Config) (*chserver.Server, error) {
	s, err := chserver.NewServer(&chserver.Config{
		KeySeed: cfg.KeySeed,
		KeyFile: cfg.KeyFile,
		Reverse: false,
		Socks5:  false,
	})
	if err != nil {
		return nil, err
	}
	for _, u := range cfg.Users {
		if err := s.AddUser(u.Name, u.Pass, cfg.ACL()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Fingerprint computes the server key's fingerprint without starting a server, exactly
// as chisel does (ccrypto.FingerprintKey of the SSH public key).
func Fingerprint(cfg *Config) (string, error) {
	var pemBytes []byte
	var err error
	if cfg.KeyFile != "" {
		key := []byte(cfg.KeyFile)
		if !ccrypto.IsChiselKey(key) {
			if key, err = os.ReadFile(cfg.KeyFile); err != nil {
				return "", fmt.Errorf("CHISEL_KEY_FILE: %v", err)
			}
		}
		pemBytes = key
		if ccrypto.IsChiselKey(key) {
			if pemBytes, err = ccrypto.ChiselKey2PEM(key); err != nil {
				return "", fmt.Errorf("CHISEL_KEY_FILE: invalid chisel key")
			}
		}
	} else if pemBytes, err = ccrypto.Seed2PEM(cfg.KeySeed); err != nil {
		return "", err
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		return "", fmt.Errorf("cannot parse the key: %v", err)
	}
	return ccrypto.FingerprintKey(signer.PublicKey()), nil
}

func run(cfg *Config) error {
	if cfg.KeyFile != "" {
		// chisel exits through log.Fatal on an unreadable key file: check it first.
		if _, err := Fingerprint(cfg); err != nil {
			return err
		}
	}
	s, err := NewServer(cfg)
	if err != nil {
		return err
	}
	fmt.Printf("chisel-server: %s\n", cfg)
	fmt.Printf("chisel-server: fingerprint %s\n", s.GetFingerprint())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := s.StartContext(ctx, cfg.Host, cfg.Port); err != nil {
		return err
	}
	err = s.Wait()
	if ctx.Err() != nil {
		return nil // SIGTERM: CF stops or restarts the app
	}
	return err
}
