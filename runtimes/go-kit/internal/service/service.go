// Package service is runtimes/CONTRACT.md written the Go-Kit way, as the
// 2020 "Helidon vs Go-Kit" study's Go side was: a business Service, one
// endpoint per operation, endpoint middlewares for request logging and
// metrics, and an HTTP transport that decodes requests and encodes answers.
// The work itself is go-nethttp's (runner/go-nethttp/contract), so this
// service and go-nethttp differ only in the framework around it.
package service

import (
	"context"
	"errors"
	"unicode/utf8"

	"runner/go-nethttp/contract"
)

const (
	language    = "go"
	serverModel = "goroutine per connection (go-kit)"
)

// RuntimeInfo is the "runtimeInfo" object of /health and the work answers,
// go-nethttp's with this service's server model.
type RuntimeInfo = contract.RuntimeInfo

// CurrentRuntimeInfo reads CPUs, GOMAXPROCS and the soft memory limit.
func CurrentRuntimeInfo() RuntimeInfo { return *contract.CurrentRuntimeInfo(serverModel) }

// Errors the Service returns; the transport maps each to its status.
var (
	ErrSize     = contract.ErrSize
	ErrValue    = errors.New("value must be valid UTF-8")
	ErrNotFound = errors.New("not found")
	ErrMethod   = errors.New("method not allowed")
)

// Service is the business logic, free of HTTP.
type Service interface {
	Generated(ctx context.Context, size string) (contract.Result, error)
	Strings(ctx context.Context, value string) (contract.Result, error)
}

type workService struct{ workFactor int }

// New returns the contract's Service at the given WORK_FACTOR (>= 1).
func New(workFactor int) Service {
	if workFactor < 1 {
		workFactor = 1
	}
	return workService{workFactor: workFactor}
}

func (s workService) Generated(_ context.Context, size string) (contract.Result, error) {
	n, err := contract.ParseSize(size)
	if err != nil {
		return contract.Result{}, err
	}
	return contract.Generated(n, s.workFactor), nil
}

func (s workService) Strings(_ context.Context, value string) (contract.Result, error) {
	if !utf8.ValidString(value) {
		return contract.Result{}, ErrValue
	}
	return contract.Strings(value, s.workFactor), nil
}
