module runner/stub

go 1.26.0
