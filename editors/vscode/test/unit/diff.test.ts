import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyDiff, diffForPath, parseDiff } from '../../src/diff';

const before = 'a\nb\nc\nd\ne\nf\ng\nh\n';
const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\n';
const diff =
  '--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,3 +6,4 @@\n f\n g\n h\n+i\n' +
  '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n';

test('a diff of two files splits per file', () => {
  const files = parseDiff(diff);
  assert.deepEqual(files.map((f) => [f.oldName, f.newName, f.hunks.length]), [['dir/x.txt', 'dir/x.txt', 2], ['', 'new.txt', 1]]);
  assert.equal(diffForPath(files, '/w/dir/x.txt'), files[0]);
  assert.equal(diffForPath(files, 'new.txt'), files[1]);
  assert.equal(diffForPath(files, '/w/x.txt'), undefined);
});

test('applied forwards and backwards', () => {
  const [x, n] = parseDiff(diff);
  assert.equal(applyDiff(before, x, false), after);
  assert.equal(applyDiff(after, x, true), before);
  assert.equal(applyDiff('', n, false), 'one\ntwo\n');
  assert.equal(applyDiff('one\ntwo\n', n, true), '');
});

test('a file that changed since does not match', () => {
  const [x] = parseDiff(diff);
  assert.equal(applyDiff('a\nX\nc\nd\ne\nf\ng\nh\n', x, false), undefined);
});

test('no newline at end of file', () => {
  const d = '--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n';
  const [f] = parseDiff(d);
  assert.equal(applyDiff('x\ny', f, false), 'x\nz');
  assert.equal(applyDiff('x\nz', f, true), 'x\ny');
  const add = '--- a/f\n+++ b/f\n@@ -1 +1 @@\n-y\n\\ No newline at end of file\n+y\n';
  assert.equal(applyDiff('y', parseDiff(add)[0], false), 'y\n');
  assert.equal(applyDiff('y\n', parseDiff(add)[0], true), 'y');
});
