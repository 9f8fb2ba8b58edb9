package sandbox

// TimingsEnv, set to a non-empty value in the command's environment, makes
// the helper print where its start-up time went, as one line on stderr
// starting with "agent-ls sandbox: timings", just before it execs the
// command (bench/sandboxbench reads it). The phases: namespaces (entering
// them, the id maps), supervisor (the forks of the processes that end
// everything the command starts), plan (reading it), mounts, checks
// (chdir, descriptors, capabilities), landlock and seccomp.
const TimingsEnv = "AGENT_LS_SANDBOX_TIMINGS"
