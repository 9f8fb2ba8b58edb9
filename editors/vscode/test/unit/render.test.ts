import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml, fileLabel, renderApproval, renderItem, renderTurn } from '../../src/render';

test('Markdown renders, raw HTML from the model does not', () => {
  const html = renderItem({ kind: 'message', itemId: 'm', text: '**bold** <img src=x onerror=alert(1)>\n\n```js\nlet a = 1 < 2;\n```', done: true }, 't');
  assert.match(html, /<strong>bold<\/strong>/);
  assert.match(html, /<pre><code class="language-js">let a = 1 &lt; 2;\n<\/code><\/pre>/);
  assert.doesNotMatch(html, /<img/);
  assert.match(html, /^<div class="message">/);
});

test('a streaming message is marked so the view can show it', () => {
  assert.match(renderItem({ kind: 'message', itemId: 'm', text: 'Hel', done: false }, 't'), /class="message streaming"/);
});

test('reasoning is collapsed', () => {
  assert.match(renderItem({ kind: 'reasoning', itemId: 'r', text: 'think', done: true }, 't'), /^<details class="reasoning"><summary>/);
});

test('a command card escapes its output', () => {
  const html = renderItem({ kind: 'tool', callId: 'c"1', tool: 'shell', toolKind: 'execute', title: 'Run <x>', output: '<b>out</b>', status: 'running' }, 't');
  assert.match(html, /data-call="c&quot;1"/);
  assert.match(html, /Run &lt;x&gt;/);
  assert.match(html, /<pre class="output">&lt;b&gt;out&lt;\/b&gt;<\/pre>/);
});

test('a file change lists each file with its counts and a diff button', () => {
  const html = renderItem(
    { kind: 'fileChange', callId: 'p1', diff: '', status: 'applied', changes: [
      { uri: 'file:///w/src/a%20b.go', kind: 'update', additions: 3, deletions: 1 },
      { uri: 'file:///w/old.go', kind: 'move', newUri: 'file:///w/new.go', additions: 0, deletions: 0 },
    ] },
    't9',
  );
  assert.match(html, /a b\.go<\/span> <span class="add">\+3<\/span> <span class="del">-1<\/span>/);
  assert.match(html, /old\.go → new\.go/);
  assert.match(html, /data-action="diff" data-turn="t9" data-call="p1" data-index="1"/);
});

test('the plan is a checklist', () => {
  const html = renderItem({ kind: 'plan', steps: [{ step: 'a', status: 'completed' }, { step: 'b', status: 'in_progress' }, { step: 'c', status: 'pending' }] }, 't');
  assert.match(html, /completed"><span class="mark">☑<\/span> a<.*in_progress"><span class="mark">◐<\/span> b<.*pending"><span class="mark">☐<\/span> c</s);
});

test('a turn shows its prompt and how it ended', () => {
  assert.match(renderTurn({ turnId: 't', prompt: '<p>', items: [], status: 'interrupted' }), /&lt;p&gt;.*■ Stopped/s);
  assert.match(renderTurn({ turnId: 't', prompt: 'x', items: [], status: 'failed', error: 'no key' }), /✗ no key/);
  assert.match(renderTurn({ turnId: 't', prompt: 'x', items: [], status: 'running' }), /Working…/);
});

test('helpers', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  assert.equal(fileLabel('file:///w/dir/f%C3%BC.txt'), 'fü.txt');
});

test('an open approval shows what, where and why, with its buttons in order', () => {
  const html = renderApproval({
    key: 't|1',
    message: 'Agent wants to run: rm x (in /w; because)',
    detail: 'in /w\nbecause',
    modal: false,
    choices: [{ title: 'Allow Once', decision: 'allowOnce' }, { title: 'Reject', decision: 'rejectOnce' }],
  });
  assert.match(html, /<span class="title">Agent wants to run: rm x<\/span>/);
  assert.match(html, /<pre class="detail">in \/w\nbecause<\/pre>/);
  assert.match(html, /<button class="" data-action="approval" data-key="t\|1" data-index="0">Allow Once<\/button> <button class="secondary"[^>]*data-index="1">Reject</);
});
