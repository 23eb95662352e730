// Package downstream is the dashboard's fan-out: three GETs in parallel on
// one pooled keep-alive HTTP/1.1 client, under one deadline, with errgroup
// cancelling the others on the first failure.
package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"golang.org/x/sync/errgroup"

	"runner/go-nethttp/microservices"
)

// maxBody bounds what a downstream may send; more is "not the expected JSON".
const maxBody = 1 << 20

// Client calls the three downstreams of the contract.
type Client struct {
	http                                      *http.Client
	profileURL, ordersURL, recommendationsURL string
	timeout                                   time.Duration
}

// NewTransport is the keep-alive pool: idle connections per downstream far
// above any connection count a benchmark uses here (each dashboard request
// holds one connection to each downstream while it runs), so a finished
// call's connection is always kept and the fan-out never pays a TCP
// handshake in steady state. net.Dialer sets TCP_NODELAY on every TCP
// connection by default. HTTP/2 is off: the stubs and the contract speak
// HTTP/1.1.
func NewTransport() *http.Transport {
	return &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          0, // no total cap; MaxIdleConnsPerHost bounds each downstream
		MaxIdleConnsPerHost:   4096,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // the fan-out's context is the deadline
		ForceAttemptHTTP2:     false,
		DisableCompression:    true,
	}
}

// New returns a client for the three base URLs with one deadline for the
// whole fan-out.
func New(profileURL, ordersURL, recommendationsURL string, timeout time.Duration) *Client {
	return &Client{
		http:               &http.Client{Transport: NewTransport()},
		profileURL:         profileURL,
		ordersURL:          ordersURL,
		recommendationsURL: recommendationsURL,
		timeout:            timeout,
	}
}

// Dashboard fans out for userID and aggregates, or answers the first
// downstream that failed as a *microservices.DownstreamError.
func (c *Client) Dashboard(ctx context.Context, userID int64) (microservices.Dashboard, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	id := strconv.FormatInt(userID, 10)
	var (
		profile, recs json.RawMessage
		orders        microservices.OrdersPart
	)
	g.Go(func() error {
		body, err := c.get(gctx, ctx, microservices.Profile, c.profileURL+"/profile/"+id)
		if err == nil {
			profile, err = microservices.ParseProfile(body)
		}
		return failed(microservices.Profile, err)
	})
	g.Go(func() error {
		body, err := c.get(gctx, ctx, microservices.Orders, c.ordersURL+"/orders/"+id)
		if err == nil {
			orders, err = microservices.ParseOrders(body)
		}
		return failed(microservices.Orders, err)
	})
	g.Go(func() error {
		body, err := c.get(gctx, ctx, microservices.Recommendations, c.recommendationsURL+"/recommendations/"+id)
		if err == nil {
			recs, err = microservices.ParseRecommendations(body)
		}
		return failed(microservices.Recommendations, err)
	})
	if err := g.Wait(); err != nil {
		return microservices.Dashboard{}, err
	}
	return microservices.Aggregate(userID, profile, orders, recs), nil
}

// failed names the downstream of a parse error (a get error names it
// already).
func failed(name string, err error) error {
	var de *microservices.DownstreamError
	if err == nil || errors.As(err, &de) {
		return err
	}
	return &microservices.DownstreamError{Downstream: name, Reason: err.Error()}
}

// get GETs url under gctx (cancelled on the first failure or at the
// deadline) and answers a 2xx body. deadline is the fan-out's own context:
// it tells a timeout from a cancellation caused by another call's failure.
func (c *Client) get(gctx, deadline context.Context, name, url string) ([]byte, error) {
	fail := func(reason string) error { return &microservices.DownstreamError{Downstream: name, Reason: reason} }
	req, err := http.NewRequestWithContext(gctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fail(err.Error())
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fail(c.reason(deadline, err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fail(c.reason(deadline, err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fail("status " + strconv.Itoa(resp.StatusCode))
	}
	if len(body) > maxBody {
		return nil, fail(fmt.Sprintf("body over %d bytes", maxBody))
	}
	return body, nil
}

// reason words a transport error: the deadline passing is a timeout.
func (c *Client) reason(deadline context.Context, err error) string {
	if errors.Is(deadline.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timeout after %d ms", c.timeout.Milliseconds())
	}
	return err.Error()
}
