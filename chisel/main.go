// Command chisel is cfscale's tunnel server: a chisel server (github.com/jpillora/chisel,
// its packages assembled in server.go) pushed to Cloud Foundry with the results database
// bound, so a workstation reaches that database through the app's route
// (scripts/tunnel.sh). See README.md.
//
// Usage:
//
//	chisel                 run the server (settings from the environment, config.go)
//	chisel fingerprint     print the fingerprint of the configured key and exit
//
// Hardened relative to a plain `chisel server` (docs/cf-platform.md §6):
// authentication is mandatory, every user may reach only the bound results database
// (anchored ACL, checked for every tunnel channel: server.go), the key is stable so
// clients pin it with --fingerprint, and reverse tunnels and SOCKS5 stay off.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

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

// Fingerprint computes the server key's fingerprint without starting a server, exactly
// as chisel does (ccrypto.FingerprintKey of the SSH public key).
func Fingerprint(cfg *Config) (string, error) {
	pemBytes, err := keyPEM(cfg)
	if err != nil {
		return "", err
	}
	signer, err := ssh.ParsePrivateKey(pemBytes)
	if err != nil {
		return "", fmt.Errorf("cannot parse the key: %v", err)
	}
	return ccrypto.FingerprintKey(signer.PublicKey()), nil
}

// keyPEM is the server key as PEM, from CHISEL_KEY_FILE (a PEM or chisel key file, or a
// chisel key itself) or generated deterministically from the CHISEL_KEY seed: the same
// rules as chisel's server, so the fingerprint is the one chisel would show.
func keyPEM(cfg *Config) ([]byte, error) {
	if cfg.KeyFile == "" {
		return ccrypto.Seed2PEM(cfg.KeySeed)
	}
	key := []byte(cfg.KeyFile)
	if !ccrypto.IsChiselKey(key) {
		var err error
		if key, err = os.ReadFile(cfg.KeyFile); err != nil {
			return nil, fmt.Errorf("CHISEL_KEY_FILE: %v", err)
		}
	}
	if ccrypto.IsChiselKey(key) {
		pemBytes, err := ccrypto.ChiselKey2PEM(key)
		if err != nil {
			return nil, fmt.Errorf("CHISEL_KEY_FILE: invalid chisel key")
		}
		return pemBytes, nil
	}
	return key, nil
}

func run(cfg *Config) error {
	fmt.Printf("chisel-server: %s\n", cfg)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := Start(ctx, cfg); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
