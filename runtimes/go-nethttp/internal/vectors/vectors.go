// Package vectors loads runtimes/contract/vectors.json for the tests.
package vectors

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Generated is one /api/generated vector. The string fields are absent for
// large sizes.
type Generated struct {
	Size        int     `json:"size"`
	WorkFactor  int     `json:"workFactor"`
	InputLength int     `json:"inputLength"`
	Hash        uint32  `json:"hash"`
	WorkScore   uint32  `json:"workScore"`
	Input       *string `json:"input"`
	Uppercase   *string `json:"uppercase"`
	Lowercase   *string `json:"lowercase"`
	Reversed    *string `json:"reversed"`
}

// String is one /api/strings vector.
type String struct {
	Value      string `json:"value"`
	WorkFactor int    `json:"workFactor"`
	Input      string `json:"input"`
	Uppercase  string `json:"uppercase"`
	Lowercase  string `json:"lowercase"`
	Reversed   string `json:"reversed"`
	Hash       uint32 `json:"hash"`
	WorkScore  uint32 `json:"workScore"`
}

// Error is one bad request and its expected status.
type Error struct {
	Path   string `json:"path"`
	Method string `json:"method"` // empty means GET
	Status int    `json:"status"`
}

// PathCheck is a good request whose path spelling matters (e.g. leading
// zeros in the size), with what its answer must carry.
type PathCheck struct {
	Path        string  `json:"path"`
	Status      int     `json:"status"`
	Hash        *uint32 `json:"hash"`        // absent: not checked
	InputLength int     `json:"inputLength"` // 0: not checked
}

// File is the whole vector file.
type File struct {
	Generated      []Generated `json:"generated"`
	Strings        []String    `json:"strings"`
	Errors         []Error     `json:"errors"`
	GeneratedPaths []PathCheck `json:"generated_paths"`
	Users          Users       `json:"users"`
}

// User is a user as the users API answers it (ID absent in POST vectors:
// it depends on how many were created before).
type User struct {
	ID    int64  `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// UserGet is one request of the users API's read side.
type UserGet struct {
	Path   string `json:"path"`
	Method string `json:"method"` // empty means GET
	Status int    `json:"status"`
	User   *User  `json:"user"` // the answer on a 200
}

// UserPost is one POST /users body and its expected status.
type UserPost struct {
	Name   string `json:"name"`
	Body   string `json:"body"`
	Status int    `json:"status"`
	User   *User  `json:"user"` // name and email of the created user on a 201
}

// Users is the users API's section of the vectors.
type Users struct {
	Seeded       int        `json:"seeded"`
	Get          []UserGet  `json:"get"`
	Post         []UserPost `json:"post"`
	MaxBodyBytes int        `json:"max_body_bytes"`
}

// Load finds contract/vectors.json by walking up from the working directory
// (go test runs in the package's folder), or reads $VECTORS if set.
func Load() (*File, error) {
	path := os.Getenv("VECTORS")
	if path == "" {
		dir, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		for {
			p := filepath.Join(dir, "contract", "vectors.json")
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil, fmt.Errorf("contract/vectors.json not found above the working directory; set VECTORS")
			}
			dir = parent
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Generated) == 0 || len(f.Strings) == 0 || len(f.Errors) == 0 || len(f.Users.Get) == 0 || len(f.Users.Post) == 0 {
		return nil, fmt.Errorf("%s: missing generated, strings, errors or users vectors", path)
	}
	return &f, nil
}
