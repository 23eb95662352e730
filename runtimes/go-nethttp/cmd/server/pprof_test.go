package main

import (
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"testing"
)

func TestGCPausesListsRecentPausesOldestFirst(t *testing.T) {
	runtime.GC()
	runtime.GC()
	rec := httptest.NewRecorder()
	pprofMux().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/runner/gc", nil))
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	var got gcStats
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.NumGC < 2 || len(got.Pauses) < 2 {
		t.Fatalf("want at least 2 GCs, got %d with %d pauses", got.NumGC, len(got.Pauses))
	}
	for i := 1; i < len(got.Pauses); i++ {
		if got.Pauses[i].EndUnixNs < got.Pauses[i-1].EndUnixNs {
			t.Fatalf("pauses not oldest first at %d: %+v", i, got.Pauses[i-1:i+1])
		}
	}
	if last := got.Pauses[len(got.Pauses)-1]; last.EndUnixNs > got.NowUnix || last.PauseNs == 0 {
		t.Fatalf("last pause %+v, now %d", last, got.NowUnix)
	}
}
