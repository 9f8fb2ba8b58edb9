// Package e2e runs agent-ls in real editors with no plugin, as a user
// who followed the README would: Neovim 0.7 (headless) and Emacs with
// eglot (batch mode), each driving the installed binary against the fake
// model server. Its tests are the whole package; see editors_test.go.
package e2e
