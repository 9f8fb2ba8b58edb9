//go:build cgo

package sandbox

// helperSupervises tells whether the helper can keep a command's
// processes from outliving it: its C constructor (reaper_linux.go) puts a PID
// namespace's init or a subreaper in place, so unconfined commands run
// through it too.
const helperSupervises = true
