package event

func init() {
	samples = append(samples, NetworkAccess{Host: "registry.npmjs.org", Port: 443, Decision: "allowed", Bytes: 52311, CallID: "call_1"})
}
