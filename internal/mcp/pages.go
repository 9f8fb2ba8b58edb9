package mcp

import (
	"context"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Every MCP listing (tools/list, resources/list, resources/templates/list)
// is paged by the server: collectPages follows its cursors with one loop
// guard and one bound for all.

// maxPages bounds the pages of one listing: a server whose pages never
// end, each with a new cursor, is stopped there.
const maxPages = 100

// pageFunc asks for the page at cursor: its entries and the next
// page's cursor ("" after the last).
type pageFunc[T any] func(ctx context.Context, cursor string) ([]T, string, error)

// collectPages lists from cursor on, page after page, until the last
// page, or until limit entries are in, or maxPages pages were asked for.
// It returns the entries and the cursor to go on from ("" when the
// listing is complete). A page that would take the entries past limit is
// left for the next listing (its cursor is returned), unless it is the
// first, which is returned whole. A cursor that comes back is an error:
// the pages loop.
func collectPages[T any](ctx context.Context, cursor string, limit int, page pageFunc[T]) ([]T, string, error) {
	var items []T
	seen := map[string]bool{cursor: true}
	for range maxPages {
		got, next, err := page(ctx, cursor)
		if err != nil {
			return nil, "", err
		}
		if len(items) > 0 && len(items)+len(got) > limit {
			return items, cursor, nil
		}
		items = append(items, got...)
		if next == "" {
			return items, "", nil
		}
		if seen[next] {
			return nil, "", fmt.Errorf("the cursor %q came back: the pages loop", textcut.Cut(next, 100))
		}
		seen[next] = true
		cursor = next
		if len(items) >= limit {
			break
		}
	}
	return items, cursor, nil
}
