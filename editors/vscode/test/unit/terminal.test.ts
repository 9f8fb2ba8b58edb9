import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appendBounded, exitLine, maxPending, terminalData, terminalName } from '../../src/terminalText';
import { notice } from '../../src/notice';

test('a terminal is named after the model\u2019s command line, shortened and made visible', () => {
  assert.equal(terminalName(['/bin/bash', '-lc', 'npm run dev'], '3'), 'Agent: npm run dev');
  assert.equal(terminalName([], '3'), 'Agent: terminal 3');
  assert.equal(terminalName(undefined, '4'), 'Agent: terminal 4');
  assert.equal(terminalName(['sh', '-c', 'echo a\n  && echo b'], '1'), 'Agent: echo a && echo b');
  assert.equal(terminalName(['sh', '-c', 'rm \u202e x'], '1'), 'Agent: rm \\u202e x');
  const long = terminalName(['sh', '-c', 'x'.repeat(100)], '1');
  assert.equal(long.length, 'Agent: '.length + 40);
  assert.ok(long.endsWith('…'));
});

test('pipe output returns to the line start; pty output is shown as it is', () => {
  assert.equal(terminalData('a\nb\r\nc', false), 'a\r\nb\r\nc');
  assert.equal(terminalData('a\nb', true), 'a\nb');
});

test('the end of a command is said, with its exit code or signal', () => {
  assert.match(exitLine(0), /exited with code 0/);
  assert.match(exitLine(2), /exited with code 2/);
  assert.match(exitLine(137), /was killed \(signal 9\)/);
  assert.match(exitLine(undefined), /The command ended/);
});

test('output kept for a terminal not open yet keeps its tail', () => {
  const big = appendBounded('x'.repeat(maxPending), 'tail');
  assert.equal(big.length, maxPending);
  assert.ok(big.endsWith('tail'));
});

test('notifications: only when the user is not looking, never for a stop or an approval', () => {
  const done = { kind: 'turnEnded', status: 'completed', queueGoesOn: false } as const;
  assert.equal(notice(done, false), 'Agent: the turn is done.');
  assert.equal(notice(done, true), undefined);
  assert.equal(notice({ ...done, status: 'failed' }, false), 'Agent: the turn failed.');
  assert.equal(notice({ ...done, status: 'interrupted' }, false), undefined);
  assert.equal(notice({ ...done, queueGoesOn: true }, false), undefined, 'the next queued prompt starts');
  assert.equal(notice({ kind: 'waiting', on: 'question' }, false), 'Agent: a question waits for your answer.');
  assert.equal(notice({ kind: 'waiting', on: 'review' }, false), 'Agent: a change waits for your review.');
  assert.equal(notice({ kind: 'waiting', on: 'review' }, true), undefined);
  assert.equal(notice({ kind: 'waiting', on: 'approval' }, false), undefined, 'approvals notify by themselves');
});
