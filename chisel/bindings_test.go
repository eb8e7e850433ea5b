package main

// The broker table (contract/bindings/*.json, docs/bindings.md): the chisel server's ACL
// target for each document is the binding's host:port, the same scripts/cf/tunnel-info.js
// hands the client; a document without a host fails naming the binding. chisel needs only
// host and port, so the table's other missing fields are not its concern.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrokerTable(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "contract", "bindings", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no broker table: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.NewReplacer(`"${PORT_NUMBER}"`, "6543", "${HOST}", "db.internal", "${PORT}", "6543",
			"${USER}", "u", "${PASSWORD}", "pw", "${DATABASE}", "results", "${CA_PEM}", `-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n`).Replace(string(raw))
		var doc struct {
			Service string                     `json:"service"`
			Expect  struct{ Error []string }   `json:"expect"`
			Vcap    map[string]json.RawMessage `json:"VCAP_SERVICES"`
		}
		if err := json.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		vcap, _ := json.Marshal(doc.Vcap)
		t.Run(filepath.Base(f), func(t *testing.T) {
			target, err := resultsTarget(string(vcap), doc.Service)
			wantsHost := false
			for _, w := range doc.Expect.Error {
				wantsHost = wantsHost || w == "host"
			}
			switch {
			case wantsHost:
				if err == nil || !strings.Contains(err.Error(), doc.Service) || !strings.Contains(err.Error(), "host") {
					t.Fatalf("want an error naming %s and host, got %q, %v", doc.Service, target, err)
				}
			case err != nil:
				t.Fatal(err)
			case target != "db.internal:6543" && target != "localhost:6543":
				t.Fatalf("target %q, want the binding's host:port", target)
			}
		})
	}
}
