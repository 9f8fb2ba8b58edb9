package agent

import "testing"

// TestSessionSharesSocketRegistry: the commands of one session share one
// socket registry (a Unix server one command starts is reached by the
// next, and so is a server on the loopback network the registry holds),
// other sessions have their own, and allow_project_sockets reaches the
// exec settings.
func TestSessionSharesSocketRegistry(t *testing.T) {
	mgr := managerWith(t, &scriptedModel{}, newRecorder(), func(o *Options) { o.AllowProjectSockets = true })
	a, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := mgr.session(a.SessionID)
	sb, _ := mgr.session(b.SessionID)
	x1, x2, y := sa.execConfig(""), sa.execConfig(""), sb.execConfig("")
	if x1.Sockets == nil || x1.Sockets != x2.Sockets {
		t.Errorf("the commands of one session do not share a socket registry: %p %p", x1.Sockets, x2.Sockets)
	}
	if y.Sockets == nil || y.Sockets == x1.Sockets {
		t.Errorf("two sessions share a socket registry")
	}
	if !x1.AllowProjectSockets {
		t.Errorf("allow_project_sockets did not reach the exec settings")
	}
	if err := mgr.Forget(a.SessionID); err != nil {
		t.Fatal(err)
	}
}
