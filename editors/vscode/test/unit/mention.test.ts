import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertMention, mentionAt, mentionsIn } from '../../src/mention';

test('mentionAt finds the @ word that ends at the caret', () => {
  assert.deepEqual(mentionAt('look at @src/ma', 15), { start: 8, query: 'src/ma' });
  assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
  assert.deepEqual(mentionAt('a @x b', 4), { start: 2, query: 'x' });
  assert.equal(mentionAt('mail@example.com', 16), undefined, 'an address is no mention');
  assert.equal(mentionAt('look at @src now', 16), undefined, 'the caret is past it');
});

test('insertMention replaces the typed query with the label', () => {
  assert.deepEqual(insertMention('look at @src/ma', 8, 15, 'src/main.go'), { text: 'look at @src/main.go ', caret: 21 });
  assert.deepEqual(insertMention('see @ma and more', 4, 7, 'main.go'), { text: 'see @main.go and more', caret: 13 });
  assert.deepEqual(insertMention('see @mai.go then', 4, 7, 'main.go'), { text: 'see @main.go then', caret: 13 }, 'the rest of the word goes');
});

test('mentionsIn keeps the chosen mentions the prompt still holds', () => {
  const chosen = [
    { label: 'src/main.go', uri: 'file:///w/src/main.go', kind: 'file' as const },
    { label: 'docs/', uri: 'file:///w/docs', kind: 'folder' as const },
    { label: 'diagnostics', kind: 'diagnostics' as const },
    { label: 'src/main.go', uri: 'file:///w/src/main.go', kind: 'file' as const },
  ];
  assert.deepEqual(mentionsIn('why does @src/main.go, with @diagnostics, fail?', chosen).map((c) => c.label), ['src/main.go', 'diagnostics']);
  assert.deepEqual(mentionsIn('nothing here', chosen), []);
  const range = { start: { line: 4, character: 5 }, end: { line: 4, character: 10 } };
  const symbol = { label: '#Greet', uri: 'file:///w/greet.go', kind: 'symbol' as const, range };
  assert.deepEqual(mentionsIn('what calls @#Greet?', [symbol]), [symbol], 'a symbol keeps its file and range');
  assert.equal(mentionAt('what calls @#Gre', 16)?.query, '#Gre');
});

test("a turn shows its prompt's mentions as chips", async () => {
  const { promptText } = await import('../../src/render');
  assert.equal(promptText('why @src/main.go & mail@x.org?'), 'why <span class="mention-chip">@src/main.go</span> &amp; mail@x.org?');
});
