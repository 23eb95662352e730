package service

import (
	"net/http"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"runner/go-nethttp/contract"
)

type healthResponse struct {
	Status      string       `json:"status"`
	Language    string       `json:"language"`
	Runtime     string       `json:"runtime"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
}

type workResponse struct {
	Input       string       `json:"input"`
	Uppercase   string       `json:"uppercase"`
	Lowercase   string       `json:"lowercase"`
	Reversed    string       `json:"reversed"`
	Hash        uint32       `json:"hash"`
	WorkFactor  int          `json:"workFactor"`
	WorkScore   uint32       `json:"workScore"`
	Runtime     string       `json:"runtime"`
	Language    string       `json:"language"`
	LogEnabled  bool         `json:"logEnabled"`
	RuntimeInfo *RuntimeInfo `json:"runtimeInfo"`
}

// Fixed answers, encoded once.
var (
	readyBody      = []byte(`{"status":"READY"}`)
	badSizeBody    = errorBody(contract.ErrSize.Error())
	badValueBody   = errorBody("value must be valid UTF-8")
	notFoundBody   = errorBody("not found")
	notAllowedBody = errorBody("method not allowed")
)

func (s *Service) health(c *gin.Context) {
	info := CurrentRuntimeInfo()
	s.info.Store(info)
	writeValue(c, http.StatusOK, &healthResponse{Status: "UP", Language: language, Runtime: s.version, RuntimeInfo: info})
}

func (s *Service) ready(c *gin.Context) { writeJSON(c, http.StatusOK, readyBody) }

func (s *Service) generated(c *gin.Context) {
	size, err := contract.ParseSize(c.Param("size"))
	if err != nil {
		writeJSON(c, http.StatusBadRequest, badSizeBody)
		return
	}
	s.noteSize(c, size)
	s.answer(c, contract.Generated(size, s.workFactor))
}

func (s *Service) strings(c *gin.Context) {
	value := c.Param("value") // percent-decoded (UnescapePathValues)
	s.noteSize(c, len(value))
	if !utf8.ValidString(value) {
		writeJSON(c, http.StatusBadRequest, badValueBody)
		return
	}
	s.answer(c, contract.Strings(value, s.workFactor))
}

func (s *Service) answer(c *gin.Context, res contract.Result) {
	writeValue(c, http.StatusOK, &workResponse{
		Input:       res.Input,
		Uppercase:   res.Uppercase,
		Lowercase:   res.Lowercase,
		Reversed:    res.Reversed,
		Hash:        res.Hash,
		WorkFactor:  s.workFactor,
		WorkScore:   res.WorkScore,
		Runtime:     s.version,
		Language:    language,
		LogEnabled:  s.logOn,
		RuntimeInfo: s.info.Load(),
	})
}

func (s *Service) notFound(c *gin.Context) { writeJSON(c, http.StatusNotFound, notFoundBody) }

// methodNotAllowed keeps the Allow header Gin computed from its routes.
func (s *Service) methodNotAllowed(c *gin.Context) {
	writeJSON(c, http.StatusMethodNotAllowed, notAllowedBody)
}
