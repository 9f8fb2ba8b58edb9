import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalPrompt } from '../../src/approval';
import { renderApproval, renderItem, renderReview, renderTurn } from '../../src/render';
import { statusText } from '../../src/statusText';
import { shellWords, visible, visibleLine } from '../../src/visible';

// Hostile text: a carriage return and erase-line that paint a harmless
// command over the real one, an OSC 52 clipboard write, a screen clear,
// C1 CSI and a bidi override.
const paintOver = 'rm -rf ~ \r\x1b[2K? run ls -la';
const osc52 = '\x1b]52;c;cm0gLXJmIH4=\x07';
const hiddenRe = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

test('visible escapes what Go textcut.Visible escapes, and nothing else', () => {
  const cases: [string, string, string?][] = [
    ['ls -la', 'ls -la'],
    ['a\tb\nc', 'a\tb\nc', 'a\\tb\\nc'],
    [paintOver, 'rm -rf ~ \\r\\x1b[2K? run ls -la'],
    ['\x1b[2J\x1b[H', '\\x1b[2J\\x1b[H'],
    [osc52, '\\x1b]52;c;cm0gLXJmIH4=\\a'],
    ['\x00\x01\b\f\v\x1f', '\\x00\\x01\\b\\f\\v\\x1f'],
    ['a\x7fb', 'a\\x7fb'],
    ['a\u009b2J\u0080\u009f\u00a0', 'a\\u009b2J\\u0080\\u009f\u00a0'],
    ['ls \u202eaxt.exe\u202a\u202b\u202c\u202d', 'ls \\u202eaxt.exe\\u202a\\u202b\\u202c\\u202d'],
    ['\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
    ['r\u200bm\u200c\u200d\u200e\u200f', 'r\\u200bm\\u200c\\u200d\\u200e\\u200f'],
    ['\u200a\u2010\u2029\u2065\u206a', '\u200a\u2010\u2029\u2065\u206a'],
    ['héllo, 世界 🙂 ✓ ▸', 'héllo, 世界 🙂 ✓ ▸'],
    ['lone \ud800 and \udc00', 'lone \\ud800 and \\udc00'],
    ['C:\\x1b\\n', 'C:\\x1b\\n'],
    ['', ''],
  ];
  for (const [input, want, wantLine] of cases) {
    assert.equal(visible(input), want, JSON.stringify(input));
    assert.equal(visibleLine(input), wantLine ?? want, JSON.stringify(input));
  }
  const big = 'text \x1b[2J more \u202e ✓\n'.repeat(200000);
  assert.equal(visible(big), 'text \\x1b[2J more \\u202e ✓\n'.repeat(200000));
});

test('a command is quoted word by word as agent-ls quotes it', () => {
  const cases: [string[], string][] = [
    [['ls', '-la'], 'ls -la'],
    [['bash', '-lc', "echo 'hi' && ls", 'a\nb', ''], `bash -lc "echo 'hi' && ls" $'a\\nb' ''`],
    [['sh', '-c', paintOver], `sh -c $'rm -rf ~ \\r\\x1b[2K? run ls -la'`],
    [['printf', osc52], `printf $'\\x1b]52;c;cm0gLXJmIH4=\\a'`],
    [['cat', 'a\u202eb', '\u200bx', '\u2066y\u2069', '\u009bz'], `cat $'a\\u202eb' $'\\u200bx' $'\\u2066y\\u2069' $'\\u009bz'`],
    [['echo', "it's\r", 'a\\b\t'], `echo $'it\\'s\\r' $'a\\\\b\\t'`],
    [['if', 'a=b', '~', 'x y', '$HOME', 'é'], `'if' 'a=b' '~' 'x y' '$HOME' é`],
  ];
  for (const [argv, want] of cases) assert.equal(shellWords(argv), want, JSON.stringify(argv));
});

test('an approval shows the real command and escapes the rest', () => {
  const p = approvalPrompt({
    sessionId: 's', turnId: 't', approvalId: 'a', kind: 'exec', command: ['sh', '-c', paintOver],
    cwd: 'file:///w/x%E2%80%AE', reason: 'why ' + osc52,
  });
  assert.equal(p.message, `Agent wants to run: sh -c $'rm -rf ~ \\r\\x1b[2K? run ls -la' (in /w/x\\u202e; why \\x1b]52;c;cm0gLXJmIH4=\\a)`);
  const t = approvalPrompt({ sessionId: 's', turnId: 't', approvalId: 'a', kind: 'tool', tool: 't\x1b[2J', server: 's\u202e' });
  assert.equal(t.message, 'Agent wants to call s\\u202e: t\\x1b[2J');
  const f = approvalPrompt({ sessionId: 's', turnId: 't', approvalId: 'a', kind: 'patch', files: ['file:///w/a\u202egpj.go'] });
  assert.equal(f.message, 'Agent wants to change /w/a\\u202egpj.go');
  const html = renderApproval({ ...p, key: 'k' });
  assert.doesNotMatch(html, hiddenRe);
  assert.match(html, /sh -c \$&#39;rm -rf ~ \\r\\x1b\[2K\? run ls -la&#39;/);
});

test('the view shows hostile text escaped: answer, reasoning, tools, output, plan, files, errors, prompt, review', () => {
  const html = renderTurn({
    turnId: 't', prompt: 'fix \u202eit', status: 'failed', error: 'boom ' + osc52,
    items: [
      { kind: 'message', itemId: 'm', text: 'Let me look.\x1b[2J\n\n```sh\n' + paintOver + '\n```', done: true },
      { kind: 'reasoning', itemId: 'r', text: 'think ' + osc52, done: true },
      { kind: 'tool', callId: 'c', tool: 'shell', toolKind: 'execute', title: paintOver, output: 'out \x1b[31mred\r\n', status: 'failed' },
      { kind: 'fileChange', callId: 'p', diff: '', status: 'applied', changes: [{ uri: 'file:///w/x%E2%80%AE.go', kind: 'update', additions: 1, deletions: 0 }] },
      { kind: 'plan', explanation: 'e' + osc52, steps: [{ step: 's\u009b', status: 'pending' }] },
      { kind: 'notice', text: 'note \u2066' },
    ],
  } as never);
  assert.doesNotMatch(html, hiddenRe);
  for (const want of ['fix \\u202eit', 'Let me look.\\x1b[2J', 'rm -rf ~ \\r\\x1b[2K? run ls -la', 'think \\x1b]52;c;cm0gLXJmIH4=\\a', 'out \\x1b[31mred\\r', 'x\\u202e.go', 's\\u009b', 'note \\u2066', 'boom \\x1b]52']) {
    assert.ok(html.includes(want), `the view lacks ${want}`);
  }
  const review = renderReview({
    key: 'k', comment: '', files: [{ uri: 'file:///w/a\u202e.go', kind: 'update', additions: 1, deletions: 0, hunks: [{ header: '@@ -1 +1 @@\u202e', lines: ['+y\x1b[2J'], accept: undefined }] }],
  } as never);
  assert.doesNotMatch(review, hiddenRe);
  assert.ok(review.includes('+y\\x1b[2J') && review.includes('a\\u202e.go'), review);
  assert.ok(!hiddenRe.test(renderItem({ kind: 'tool', callId: 'c', tool: 't\u202e', status: 'running' } as never, 't')));
});

test('the status bar shows a tool title escaped', () => {
  assert.equal(statusText(paintOver, 0, '').text, '$(sync~spin) Agent: rm -rf ~ \\r\\x1b[2K? run ls -la');
});
