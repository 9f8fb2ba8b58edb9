//go:build !race

package lsp

// raceScale: see race_test.go.
const raceScale = 1
