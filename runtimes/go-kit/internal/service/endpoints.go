package service

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/go-kit/kit/endpoint"

	"runner/go-nethttp/contract"
)

// request is what the transport decodes for every route: the path (for the
// log line), the route's operation and its one path parameter.
type request struct {
	Path  string
	Param string
	op    op
}

// op names the operation a route maps to; it is the endpoint's name in logs
// and metrics.
type op string

const (
	opHealth    op = "health"
	opReady     op = "ready"
	opGenerated op = "generated"
	opStrings   op = "strings"
	opNotFound  op = "not_found"
	opMethod    op = "method_not_allowed"
)

type healthResponse struct {
	Status      string      `json:"status"`
	Language    string      `json:"language"`
	Runtime     string      `json:"runtime"`
	RuntimeInfo RuntimeInfo `json:"runtimeInfo"`
}

type readyResponse struct {
	Status string `json:"status"`
}

type workResponse struct {
	Input       string      `json:"input"`
	Uppercase   string      `json:"uppercase"`
	Lowercase   string      `json:"lowercase"`
	Reversed    string      `json:"reversed"`
	Hash        uint32      `json:"hash"`
	WorkFactor  int         `json:"workFactor"`
	WorkScore   uint32      `json:"workScore"`
	Runtime     string      `json:"runtime"`
	Language    string      `json:"language"`
	LogEnabled  bool        `json:"logEnabled"`
	RuntimeInfo RuntimeInfo `json:"runtimeInfo"`
}

// Endpoints holds one go-kit endpoint per operation, each already wrapped in
// the configured middlewares.
type Endpoints map[op]endpoint.Endpoint

// answerInfo is what every answer repeats about the runtime. runtimeInfo is
// read once and refreshed by /health, as go-nethttp does, so a work answer
// costs no more here than there.
type answerInfo struct {
	workFactor  int
	logOn       bool
	runtimeInfo *atomic.Pointer[RuntimeInfo]
}

// MakeEndpoints builds the endpoints over svc and wraps each in mw (applied
// in order, the first outermost).
func MakeEndpoints(svc Service, workFactor int, logOn bool, mw ...func(op) endpoint.Middleware) Endpoints {
	info := answerInfo{workFactor: workFactor, logOn: logOn, runtimeInfo: &atomic.Pointer[RuntimeInfo]{}}
	current := CurrentRuntimeInfo()
	info.runtimeInfo.Store(&current)
	raw := Endpoints{
		opHealth: func(context.Context, any) (any, error) {
			fresh := CurrentRuntimeInfo()
			info.runtimeInfo.Store(&fresh)
			return healthResponse{Status: "UP", Language: language, Runtime: runtime.Version(), RuntimeInfo: fresh}, nil
		},
		opReady: func(context.Context, any) (any, error) {
			return readyResponse{Status: "READY"}, nil
		},
		opGenerated: func(ctx context.Context, r any) (any, error) {
			res, err := svc.Generated(ctx, r.(request).Param)
			return info.work(res), err
		},
		opStrings: func(ctx context.Context, r any) (any, error) {
			res, err := svc.Strings(ctx, r.(request).Param)
			return info.work(res), err
		},
		opNotFound: func(context.Context, any) (any, error) { return nil, ErrNotFound },
		opMethod:   func(context.Context, any) (any, error) { return nil, ErrMethod },
	}
	out := Endpoints{}
	for name, e := range raw {
		for i := len(mw) - 1; i >= 0; i-- {
			e = mw[i](name)(e)
		}
		out[name] = e
	}
	return out
}

func (a answerInfo) work(res contract.Result) workResponse {
	return workResponse{
		Input:       res.Input,
		Uppercase:   res.Uppercase,
		Lowercase:   res.Lowercase,
		Reversed:    res.Reversed,
		Hash:        res.Hash,
		WorkFactor:  a.workFactor,
		WorkScore:   res.WorkScore,
		Runtime:     runtime.Version(),
		Language:    language,
		LogEnabled:  a.logOn,
		RuntimeInfo: *a.runtimeInfo.Load(),
	}
}
