//go:build race

package lsp

// raceScale divides the sizes of the memory tests under the race
// detector, which makes each byte decoded and encoded many times slower.
const raceScale = 5
