package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Distribution is a declared delay distribution: Draw maps a seeded random
// source to one delay, so the same source gives the same sequence.
type Distribution interface {
	Draw(r *rand.Rand) time.Duration
	String() string
}

// Fixed answers every request after the same delay.
type Fixed struct{ D time.Duration }

func (f Fixed) Draw(*rand.Rand) time.Duration { return f.D }
func (f Fixed) String() string                { return fmt.Sprintf("fixed(%s)", f.D) }

// Uniform draws a delay uniformly from [Lo, Hi].
type Uniform struct{ Lo, Hi time.Duration }

func (u Uniform) Draw(r *rand.Rand) time.Duration {
	if u.Hi == u.Lo {
		return u.Lo
	}
	return u.Lo + time.Duration(r.Int64N(int64(u.Hi-u.Lo)+1))
}
func (u Uniform) String() string { return fmt.Sprintf("uniform(%s,%s)", u.Lo, u.Hi) }

// LogNormal draws exp(N(ln Median, Sigma^2)): Median is the distribution's
// median, Sigma the standard deviation of the delay's logarithm (0.5 puts
// the 99th percentile at Median x 3.2). Capped at Max so one draw from the
// tail cannot hang a run; the cap is part of the declaration.
type LogNormal struct {
	Median time.Duration
	Sigma  float64
	Max    time.Duration
}

func (l LogNormal) Draw(r *rand.Rand) time.Duration {
	d := time.Duration(float64(l.Median) * math.Exp(l.Sigma*r.NormFloat64()))
	return min(d, l.Max)
}
func (l LogNormal) String() string {
	return fmt.Sprintf("lognormal(%s,%g,%s)", l.Median, l.Sigma, l.Max)
}

// DefaultDistribution is the study's downstream: 5 to 20 ms, uniform.
var DefaultDistribution Distribution = Uniform{5 * time.Millisecond, 20 * time.Millisecond}

// ParseDistribution reads `fixed(10ms)`, `uniform(5ms,20ms)` or
// `lognormal(10ms,0.5)` / `lognormal(10ms,0.5,1s)` (median, sigma, cap;
// the cap defaults to 100 x the median).
func ParseDistribution(text string) (Distribution, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return DefaultDistribution, nil
	}
	name, rest, ok := strings.Cut(text, "(")
	if !ok || !strings.HasSuffix(rest, ")") {
		return nil, fmt.Errorf("delay %q: expected fixed(D), uniform(LO,HI) or lognormal(MEDIAN,SIGMA[,MAX]), e.g. uniform(5ms,20ms)", text)
	}
	args := strings.Split(strings.TrimSuffix(rest, ")"), ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	durations := func(want int) ([]time.Duration, error) {
		if len(args) != want {
			return nil, fmt.Errorf("delay %q: %s takes %d argument(s), got %d", text, name, want, len(args))
		}
		out := make([]time.Duration, want)
		for i, a := range args {
			d, err := time.ParseDuration(a)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("delay %q: %q is not a duration >= 0 such as 5ms", text, a)
			}
			out[i] = d
		}
		return out, nil
	}
	switch name {
	case "fixed":
		d, err := durations(1)
		if err != nil {
			return nil, err
		}
		return Fixed{d[0]}, nil
	case "uniform":
		d, err := durations(2)
		if err != nil {
			return nil, err
		}
		if d[1] < d[0] {
			return nil, fmt.Errorf("delay %q: the upper bound %s is below the lower bound %s", text, d[1], d[0])
		}
		return Uniform{d[0], d[1]}, nil
	case "lognormal":
		if len(args) != 2 && len(args) != 3 {
			return nil, fmt.Errorf("delay %q: lognormal takes MEDIAN,SIGMA[,MAX], e.g. lognormal(10ms,0.5)", text)
		}
		median, err := time.ParseDuration(args[0])
		if err != nil || median <= 0 {
			return nil, fmt.Errorf("delay %q: median %q is not a duration > 0 such as 10ms", text, args[0])
		}
		sigma, err := strconv.ParseFloat(args[1], 64)
		if err != nil || sigma < 0 || math.IsInf(sigma, 0) {
			return nil, fmt.Errorf("delay %q: sigma %q is not a number >= 0 such as 0.5", text, args[1])
		}
		max := 100 * median
		if len(args) == 3 {
			if max, err = time.ParseDuration(args[2]); err != nil || max < median {
				return nil, fmt.Errorf("delay %q: cap %q is not a duration >= the median", text, args[2])
			}
		}
		return LogNormal{median, sigma, max}, nil
	}
	return nil, fmt.Errorf("delay %q: unknown distribution %q: use fixed, uniform or lognormal", text, name)
}
