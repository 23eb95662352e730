package contract

import (
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
)

// RuntimeInfo is the "runtimeInfo" object of /health and the work answers
// (runtimes/CONTRACT.md), the same for every Go service but its server model.
type RuntimeInfo struct {
	CPUs              int    `json:"cpus"`
	Parallelism       int    `json:"parallelism"`
	ParallelismSource string `json:"parallelismSource"`
	MemoryLimit       string `json:"memoryLimit"`
	ServerModel       string `json:"serverModel"`
	// TLS is "off" or the TLS library serving (CONTRACT.md, "TLS and
	// HTTP/2"); Protocols the application protocols offered on PORT.
	TLS       string   `json:"tls"`
	Protocols []string `json:"protocols"`
}

// CurrentRuntimeInfo reads the runtime's view of CPUs, GOMAXPROCS and the
// soft memory limit (GOMEMLIMIT / debug.SetMemoryLimit), for a plain
// HTTP/1.1 server; a service serving TLS or h2c sets TLS and Protocols from
// its Transport.
func CurrentRuntimeInfo(serverModel string) *RuntimeInfo {
	limit := "off"
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		limit = strconv.FormatInt(l, 10)
	}
	return &RuntimeInfo{
		CPUs:              runtime.NumCPU(),
		Parallelism:       runtime.GOMAXPROCS(0),
		ParallelismSource: "GOMAXPROCS",
		MemoryLimit:       limit,
		ServerModel:       serverModel,
		TLS:               "off",
		Protocols:         []string{"http/1.1"},
	}
}
