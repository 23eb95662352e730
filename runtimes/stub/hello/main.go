// Command hello is the baseline of scripts/stub-overhead.sh: the least a
// Go net/http server can do for one request (a fixed JSON body with its
// Content-Length), so the stub's own cost at delay 0 (route match, seeded
// draw, stats) is measured against it on the same pinned CPU.
package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hello PORT BODY_FILE")
		os.Exit(2)
	}
	body, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
	length := strconv.Itoa(len(body))
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", length)
		_, _ = w.Write(body)
	})
	if err := http.ListenAndServe("127.0.0.1:"+os.Args[1], handler); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}
