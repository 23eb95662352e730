package work

import (
	"strings"
	"testing"

	"runner/go-nethttp/internal/vectors"
)

func load(t *testing.T) *vectors.File {
	t.Helper()
	f, err := vectors.Load()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestGeneratedVectors(t *testing.T) {
	for _, v := range load(t).Generated {
		r := Generated(v.Size, v.WorkFactor)
		if len(r.Input) != v.InputLength {
			t.Errorf("size %d: input length %d, want %d", v.Size, len(r.Input), v.InputLength)
		}
		if r.Hash != v.Hash || r.WorkScore != v.WorkScore {
			t.Errorf("size %d wf %d: hash %d workScore %d, want %d %d",
				v.Size, v.WorkFactor, r.Hash, r.WorkScore, v.Hash, v.WorkScore)
		}
		check := func(name, got string, want *string, fallback string) {
			w := fallback
			if want != nil {
				w = *want
			}
			if got != w {
				t.Errorf("size %d: %s = %.40q..., want %.40q...", v.Size, name, got, w)
			}
		}
		in := strings.Repeat("x", v.Size)
		up := strings.Repeat("X", v.Size)
		if v.Size == 7 {
			in, up = "Helidon", "HELIDON"
		}
		check("input", r.Input, v.Input, in)
		check("uppercase", r.Uppercase, v.Uppercase, up)
		check("lowercase", r.Lowercase, v.Lowercase, strings.ToLower(in))
		if v.Size != 7 {
			check("reversed", r.Reversed, v.Reversed, in)
		} else {
			check("reversed", r.Reversed, v.Reversed, "nodileH")
		}
	}
}

func TestStringVectors(t *testing.T) {
	for _, v := range load(t).Strings {
		r := Strings(v.Value, v.WorkFactor)
		got := [4]string{r.Input, r.Uppercase, r.Lowercase, r.Reversed}
		want := [4]string{v.Input, v.Uppercase, v.Lowercase, v.Reversed}
		if got != want || r.Hash != v.Hash || r.WorkScore != v.WorkScore {
			t.Errorf("%q wf %d: got %q %d %d, want %q %d %d",
				v.Value, v.WorkFactor, got, r.Hash, r.WorkScore, want, v.Hash, v.WorkScore)
		}
	}
}

// The hand-checked case of CONTRACT.md.
func TestHelidonByHand(t *testing.T) {
	r := Generated(7, 1)
	if r.Hash != 2951479431 || r.WorkScore != 3584129939 {
		t.Fatalf("Helidon: hash %d workScore %d", r.Hash, r.WorkScore)
	}
}

func TestCaseMappingIsASCIIOnly(t *testing.T) {
	r := Strings("àÉz€Ω", 1)
	if r.Uppercase != "àÉZ€Ω" || r.Lowercase != "àÉz€Ω" || r.Reversed != "Ω€zÉà" {
		t.Fatalf("got %q %q %q", r.Uppercase, r.Lowercase, r.Reversed)
	}
}

func TestParseSize(t *testing.T) {
	ok := map[string]int{"1": 1, "7": 7, "128": 128, "1048576": MaxSize}
	for s, want := range ok {
		if n, err := ParseSize(s); err != nil || n != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, n, err, want)
		}
	}
	for _, s := range []string{"", "abc", "0", "-1", "+5", "1.5", " 7", "7 ", "1e3", "0x10",
		"1048577", "2000000", "99999999999999999999", strings.Repeat("9", 10000)} {
		if n, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, n)
		}
	}
}

func BenchmarkGenerated128WF10(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Generated(128, 10)
	}
}

func BenchmarkGenerated8192WF10(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Generated(8192, 10)
	}
}
