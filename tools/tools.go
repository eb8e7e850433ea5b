//go:build tools

// Package tools pins the cf CLI that tools/build.sh builds (the checks in
// scripts/cf/ run the real binary's --help against the invocations the scripts use).
package tools

import _ "code.cloudfoundry.org/cli/v8"
