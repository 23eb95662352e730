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
}

// CurrentRuntimeInfo reads the runtime's view of CPUs, GOMAXPROCS and the
// soft memory limit (GOMEMLIMIT / debug.SetMemoryLimit).
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
	}
}
