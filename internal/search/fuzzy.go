package search

import (
	"strings"
	"unicode/utf8"
)

// fuzzyScore scores how well query (lower case) matches path (its lower
// case form lower, slash-separated, relative): -1 when the query's
// characters do not all appear in it in order. Higher is better: a match
// in the last segment (the file's own name), at the start of a word,
// of consecutive characters, or as a whole substring scores more, and
// shorter paths win ties, as an editor's quick-open does.
func fuzzyScore(lower, query string) int {
	if query == "" {
		return 1000 - len(lower)
	}
	base := strings.LastIndexByte(strings.TrimSuffix(lower, "/"), '/') + 1
	name := lower[base:]
	score := 0
	switch {
	case strings.TrimSuffix(name, "/") == query || stem(name) == query:
		score = 3000
	case strings.HasPrefix(name, query):
		score = 2000
	case strings.Contains(name, query):
		score = 1500
	case strings.Contains(lower, query):
		score = 1000
	}
	s := subsequence(lower, query, base)
	if s < 0 {
		return -1
	}
	return score + s - len(lower)
}

// stem is a file name without its last extension.
func stem(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// subsequence matches query in lower greedily, from the last segment
// (base on) when the whole query fits there, else from the start, and
// scores the matched characters: word starts and runs count. -1: no
// match.
func subsequence(lower, query string, base int) int {
	if s := subsequenceFrom(lower, query, base); s >= 0 {
		return s + 200
	}
	return subsequenceFrom(lower, query, 0)
}

func subsequenceFrom(lower, query string, from int) int {
	score, prev := 0, -2
	i := from
	for _, q := range query {
		j := strings.IndexRune(lower[i:], q)
		if j < 0 {
			return -1
		}
		at := i + j
		switch {
		case at == prev+1:
			score += 15
		case at == 0 || strings.IndexByte("/_-. ", lower[at-1]) >= 0:
			score += 10
		}
		prev = at
		i = at + utf8.RuneLen(q)
	}
	return score
}
