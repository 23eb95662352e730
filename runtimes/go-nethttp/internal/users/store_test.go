package users

import "testing"

func TestSeededStoreHoldsEveryUser(t *testing.T) {
	s := NewSeeded(SeedCount)
	u, ok := s.Get(SeedCount)
	if !ok || u.Name != "user10000" || u.Email != "user10000@example.com" {
		t.Fatalf("Get(%d) = %+v, %v", SeedCount, u, ok)
	}
	if _, ok := s.Get(SeedCount + 1); ok {
		t.Fatal("an id past the seed exists before any insert")
	}
	if got := s.Insert("Ada", "a@b"); got.ID != SeedCount+1 {
		t.Fatalf("first insert got id %d, want %d", got.ID, SeedCount+1)
	}
}

func TestParseID(t *testing.T) {
	for seg, want := range map[string]bool{"1": true, "10000": true, "0": false, "007": false, "-1": false, "1.5": false, "": false, "abc": false, "9999999999999999999": false} {
		if _, ok := ParseID(seg); ok != want {
			t.Errorf("ParseID(%q) ok = %v, want %v", seg, ok, want)
		}
	}
}

func TestParseNewNullFieldIsNotAString(t *testing.T) {
	// json.Unmarshal of null into a string leaves it unchanged and succeeds.
	if _, _, err := ParseNew([]byte(`{"name":null,"email":"a@b"}`)); err != ErrName {
		t.Fatalf("err = %v, want ErrName", err)
	}
}
