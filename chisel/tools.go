//go:build tools

// tools.go pins the chisel command (the client the tests and scripts/tunnel.sh run) to
// the same version as the server: `go build -mod=vendor -o DIR/chisel github.com/jpillora/chisel`.
package main

import _ "github.com/jpillora/chisel"
