package main

// Staging without internet (docs/cf-platform.md §12): the Go buildpack builds with
// -mod=vendor when vendor/ exists, so `go mod vendor` must leave vendor/, go.mod and go.sum
// as they are, and go.mod's go line must be the oldest that builds: the highest go line
// among the vendored modules. Run by chisel/test.sh with CFSCALE_CHISEL_E2E=1 (it runs the
// go tool on the whole module).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestVendorIsCurrent(t *testing.T) {
	if os.Getenv("CFSCALE_CHISEL_E2E") != "1" {
		t.Skip("set CFSCALE_CHISEL_E2E=1 (chisel/test.sh does)")
	}
	out := t.TempDir()
	c := exec.Command("go", "mod", "vendor", "-o", filepath.Join(out, "vendor"))
	c.Env = append(os.Environ(), "GOFLAGS=")
	goMod, _ := os.ReadFile("go.mod")
	goSum, _ := os.ReadFile("go.sum")
	if msg, err := c.CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v: %s", err, msg)
	}
	defer func() { _ = os.WriteFile("go.mod", goMod, 0o644); _ = os.WriteFile("go.sum", goSum, 0o644) }()
	if diff, err := exec.Command("diff", "-rq", "vendor", filepath.Join(out, "vendor")).CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor changes vendor/: run it in chisel/ and commit the result\n%s", diff)
	}
	if now, _ := os.ReadFile("go.mod"); !bytes.Equal(now, goMod) {
		t.Fatal("go mod vendor changes go.mod: run it in chisel/ and commit the result")
	}
	if now, _ := os.ReadFile("go.sum"); !bytes.Equal(now, goSum) {
		t.Fatal("go mod vendor changes go.sum: run it in chisel/ and commit the result")
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	modules, _ := os.ReadFile("vendor/modules.txt")
	floor := ""
	for _, m := range regexp.MustCompile(`(?m)^## explicit; go (\S+)$`).FindAllSubmatch(modules, -1) {
		if v := string(m[1]); floor == "" || versionLess(floor, v) {
			floor = v
		}
	}
	if goLine == nil || string(goLine[1]) != floor {
		t.Fatalf("go.mod says go %s; the oldest that builds is go %s (the highest go line in vendor/modules.txt)", goLine[1], floor)
	}
	t.Logf("vendor/ is current, go line %s is the vendored modules' floor", strings.TrimSpace(floor))
}

// versionLess orders go lines such as 1.22 and 1.23.0 numerically, part by part.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}
