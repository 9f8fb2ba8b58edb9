import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answer, counts, firstChangedLine, newReview, setAll, setHunk, splitSections } from '../../src/review';
import type { ReviewParams } from '../../src/protocol';
import { renderReview } from '../../src/render';
import { emptyState, reduce, sameFolder } from '../../src/conversation';

const diff =
  '--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+LINE 2\n line 3\n line 4\n line 5\n' +
  '@@ -16,5 +16,5 @@\n line 16\n line 17\n line 18\n-line 19\n+LINE 19\n line 20\n' +
  '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+new file\n';

const params: ReviewParams = {
  sessionId: 's',
  turnId: 't',
  callId: 'c',
  diff,
  changes: [
    { uri: 'file:///w/moved.txt', kind: 'move', newUri: 'file:///w/to.txt', additions: 0, deletions: 0, hunks: 0 },
    { uri: 'file:///w/a.txt', kind: 'update', additions: 2, deletions: 2, hunks: 2 },
    { uri: 'file:///w/b.txt', kind: 'add', additions: 1, deletions: 0, hunks: 1 },
  ],
};

test('the diff sections go to the files with hunks, in order', () => {
  assert.equal(splitSections(diff).length, 2);
  const r = newReview(params);
  assert.equal(r.files[0].hunks.length, 0);
  assert.deepEqual(r.files[1].hunks.map((h) => h.header), ['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
  assert.equal(r.files[2].hunks.length, 1);
  assert.ok(r.files[1].diff.startsWith('--- a/a.txt\n') && !r.files[1].diff.includes('b.txt'));
  assert.equal(firstChangedLine(r.files[1].hunks[0]), 1);
  assert.equal(firstChangedLine(r.files[1].hunks[1]), 18);
  assert.equal(firstChangedLine(r.files[2].hunks[0]), 0);
});

test('accept one hunk, reject the other: only the accepted one is named as accepted', () => {
  const r = newReview(params);
  setHunk(r, 1, 0, true);
  setHunk(r, 1, 1, false);
  r.comment = '  keep line 19  ';
  assert.deepEqual(counts(r), { accepted: 1, rejected: 1, open: 1 });
  assert.deepEqual(answer(r), { decision: 'reject', hunks: [{ uri: 'file:///w/a.txt', index: 0, accept: true }], comment: 'keep line 19' });
});

test('all or nothing', () => {
  const r = newReview(params);
  setAll(r, true);
  assert.deepEqual(answer(r), { decision: 'accept' });
  setAll(r, false);
  assert.deepEqual(answer(r), { decision: 'reject' });
  setHunk(r, 5, 0, true); // no such file: nothing happens
  assert.deepEqual(answer(r), { decision: 'reject' });
});

test('the review card: each hunk with Accept and Reject, its state, the comment escaped', () => {
  const r = newReview(params);
  setHunk(r, 1, 1, false);
  r.comment = '<b>no</b>';
  const html = renderReview(r);
  assert.equal((html.match(/data-review-action="accept"/g) ?? []).length, 3);
  assert.match(html, /class="hunk rejected" data-file="1" data-hunk="1"/);
  assert.match(html, /0 accepted · 1 rejected · 2 undecided/);
  assert.match(html, /&lt;b&gt;no&lt;\/b&gt;<\/textarea>/);
  assert.match(html, /<span class="del">-line 19<\/span>/);
  assert.match(html, /moved\.txt → to\.txt/);
});

test('a reviewed change redraws as one card, whatever became of the proposal', () => {
  const s = emptyState();
  const base = { sessionId: 's', turnId: 't', type: 'fileChange', callId: 'c', changes: params.changes, diff };
  reduce(s, { ...base, seq: 1, status: 'proposed' });
  reduce(s, { ...base, seq: 2, status: 'applied' });
  assert.equal(s.turns[0].items.length, 1);
  assert.equal((s.turns[0].items[0] as { status: string }).status, 'applied');
});

test('the workspace folder matches a session cwd however the URI is spelled', () => {
  assert.ok(sameFolder('file:///w/my%20dir', 'file:///w/my dir/'));
  assert.ok(!sameFolder('file:///w/other', 'file:///w/my dir'));
});
