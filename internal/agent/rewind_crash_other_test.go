//go:build !unix

package agent

// rewindHelper is the crash test's helper process, which runs on Unix
// only (the test kills it with SIGKILL).
func rewindHelper(string) int { return 2 }
