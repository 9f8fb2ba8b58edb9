package sandbox

// setgidDirsNotified says whether the supervisor decides set-group-ID
// chmods (chmod_notify_linux.c): where it can decide Unix socket calls,
// it can decide these, which need the same of the kernel and libseccomp.
func setgidDirsNotified() bool {
	ok, _ := unixSocketSupport()
	return ok
}

// explainSetID says for --explain what keeps set-ID files from being made.
func explainSetID(line func(string, ...any), p Policy, c Capabilities) {
	if !c.Seccomp {
		return
	}
	line("set-ID files: seccomp refuses (EPERM) set-user-ID and set-group-ID modes on chmod, fchmod,")
	line("           fchmodat, fchmodat2, open, openat, creat (O_CREAT, O_TMPFILE), mknod and mknodat;")
	line("           openat2 is ENOSYS (callers fall back to openat); file capabilities need CAP_SETFCAP")
	if c.UnixSockets {
		line("           set-group-ID directories are allowed: the supervisor checks the target is a directory")
	} else {
		line("           set-group-ID is refused on directories too (no supervisor here: %s)", c.UnixSocketsNote)
	}
	if c.Namespaces && !p.NoNamespace {
		line("           and every mount is nosuid inside the sandbox")
		line("metadata: outside the writable roots every mount is read-only inside the sandbox, so chmod,")
		line("           chown, utimes and extended attributes (which Landlock does not confine) fail (EROFS);")
		line("           each writable root is a mount of its own (rename between two is EXDEV; mv copies)")
	} else {
		line("metadata: Landlock does not confine chmod, chown, utimes or extended attributes: without a")
		line("           mount namespace a command can change those of any file of this user")
	}
}
