// gotarget: a minimal Go net/http target for bench/efficiency.sh --target go. It answers
// like bench/target.js (and the apps' /health): echoes X-Correlation-ID, sends
// X-Instance-Index, "ok\n". Faster per request than node:http on one core, so that the
// generator under test, not the target, is the bottleneck. Usage: gotarget PORT (0 = any);
// prints the port it listens on.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
)

func main() {
	port := 0
	if len(os.Args) > 1 {
		p, err := strconv.Atoi(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "gotarget: PORT must be a number")
			os.Exit(1)
		}
		port = p
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	body := []byte("ok\n")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd["Content-Type"] = []string{"text/plain; charset=utf-8"}
		hd["Content-Length"] = []string{"3"}
		id := r.Header.Get("X-Correlation-Id")
		if id == "" {
			id = "-"
		}
		hd["X-Correlation-Id"] = []string{id}
		hd["X-Instance-Index"] = []string{"0"}
		w.WriteHeader(200)
		w.Write(body)
	})
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, "gotarget:", err)
		os.Exit(1)
	}
}
