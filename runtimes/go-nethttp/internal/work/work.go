// Package work implements the work function of runtimes/CONTRACT.md: ASCII
// upper- and lowercase, code-point reversal, the CRC-32 (IEEE) of the input
// and the workScore, one running CRC-32 over (uppercase + lowercase +
// reversed) repeated WORK_FACTOR times.
package work

import (
	"errors"
	"hash/crc32"
	"unicode/utf8"
)

// MaxSize is the largest accepted size for /api/generated/{size}.
const MaxSize = 1 << 20 // 1,048,576

// ErrSize is returned by ParseSize for anything but a decimal integer in
// [1, MaxSize].
var ErrSize = errors.New("size must be an integer between 1 and 1048576")

// Result is the work's answer. Uppercase, Lowercase and Reversed share one
// backing allocation.
type Result struct {
	Input     string
	Uppercase string
	Lowercase string
	Reversed  string
	Hash      uint32
	WorkScore uint32
}

// ParseSize parses a path segment as a size: ASCII digits only (no sign, no
// spaces, no fraction), 1 <= size <= MaxSize. Parsing stops as soon as the
// value exceeds MaxSize, so an arbitrarily long number costs nothing and
// cannot overflow.
func ParseSize(s string) (int, error) {
	if len(s) == 0 {
		return 0, ErrSize
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, ErrSize
		}
		n = n*10 + int(c-'0')
		if n > MaxSize {
			return 0, ErrSize
		}
	}
	if n < 1 {
		return 0, ErrSize
	}
	return n, nil
}

// Generated computes the work for /api/generated/{size}: the input is
// "Helidon" when size is 7, otherwise size times 'x'. size must be valid
// (see ParseSize).
func Generated(size, workFactor int) Result {
	// One buffer holds input | uppercase | lowercase | reversed.
	buf := make([]byte, 4*size)
	if size == 7 {
		copy(buf, "Helidon")
	} else {
		in := buf[:size]
		for i := range in {
			in[i] = 'x'
		}
	}
	return compute(buf, size, workFactor)
}

// Strings computes the work for /api/strings/{value}. The input must be valid
// UTF-8 (see utf8.ValidString); invalid bytes would be reversed one by one.
func Strings(input string, workFactor int) Result {
	n := len(input)
	buf := make([]byte, 4*n)
	copy(buf, input)
	return compute(buf, n, workFactor)
}

// compute fills buf[n:4n] from the input in buf[:n] and hashes.
func compute(buf []byte, n, workFactor int) Result {
	in := buf[:n]
	up := buf[n : 2*n]
	lo := buf[2*n : 3*n]
	rev := buf[3*n : 4*n]

	// ASCII-only case mapping: bytes of multi-byte UTF-8 sequences are all
	// >= 0x80, so a byte-wise mapping never touches them.
	ascii := true
	for i, c := range in {
		u, l := c, c
		if 'a' <= c && c <= 'z' {
			u = c - ('a' - 'A')
		} else if 'A' <= c && c <= 'Z' {
			l = c + ('a' - 'A')
		} else if c >= utf8.RuneSelf {
			ascii = false
		}
		up[i] = u
		lo[i] = l
	}

	// Reversal by code point.
	if ascii {
		for i, c := range in {
			rev[n-1-i] = c
		}
	} else {
		w := 0
		for end := n; end > 0; {
			_, size := utf8.DecodeLastRune(in[:end])
			w += copy(rev[w:], in[end-size:end])
			end -= size
		}
	}

	hash := crc32.ChecksumIEEE(in)

	// The stream uppercase+lowercase+reversed is exactly buf[n:], so one
	// Update per repetition continues the running CRC across repetitions.
	stream := buf[n:]
	var score uint32
	for range workFactor {
		score = crc32.Update(score, crc32.IEEETable, stream)
	}

	s := string(buf) // one copy; the four fields are substrings of it
	return Result{
		Input:     s[:n],
		Uppercase: s[n : 2*n],
		Lowercase: s[2*n : 3*n],
		Reversed:  s[3*n:],
		Hash:      hash,
		WorkScore: score,
	}
}
