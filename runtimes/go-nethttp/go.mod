module runner/go-nethttp

go 1.26.0
