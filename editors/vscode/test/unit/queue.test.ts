import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyState, planToApprove, reduce, type State } from '../../src/conversation';
import type { AgentEvent } from '../../src/protocol';
import { renderQueue, renderTurn } from '../../src/render';

let seq = 0;
function ev(type: string, fields: Partial<AgentEvent> = {}): AgentEvent {
  return { sessionId: 's1', turnId: 't1', seq: ++seq, type, ...fields } as AgentEvent;
}

function play(events: AgentEvent[], s: State = emptyState()): State {
  for (const e of events) reduce(s, e);
  return s;
}

test('queueChanged replaces the queue, between turns too, without making a turn of its own', () => {
  const s = play([
    ev('turnStarted', { prompt: 'first' }),
    ev('queueChanged', { items: [{ turnId: 't2', prompt: 'second' }, { turnId: 't3', prompt: 'third' }] }),
  ]);
  assert.deepEqual(s.queue, [{ turnId: 't2', prompt: 'second' }, { turnId: 't3', prompt: 'third' }]);
  assert.equal(s.queuePaused, false);
  reduce(s, ev('turnCompleted', { status: 'interrupted' }));
  reduce(s, ev('queueChanged', { turnId: '', items: [{ turnId: 't3', prompt: 'third' }], paused: true }));
  assert.deepEqual(s.queue, [{ turnId: 't3', prompt: 'third' }]);
  assert.equal(s.queuePaused, true);
  assert.deepEqual(s.turns.map((t) => t.turnId), ['t1'], 'no turn with the id ""');
  reduce(s, ev('queueChanged', { turnId: '', items: [], paused: true }));
  assert.equal(s.queuePaused, false, 'an empty queue waits for nothing');
});

test('a steered message lands in the running turn where it arrived', () => {
  const s = play([
    ev('turnStarted', { prompt: 'first' }),
    ev('message', { itemId: 'm1', text: 'Looking.' }),
    ev('steered', { text: 'also check the tests' }),
    ev('message', { itemId: 'm2', text: 'And the tests.' }),
  ]);
  assert.deepEqual(
    s.turns[0].items.map((i) => i.kind),
    ['message', 'steered', 'message'],
  );
  const html = renderTurn(s.turns[0]);
  assert.match(html, /<div class="prompt steered"><div class="dim">You, while it worked:<\/div>also check the tests<\/div>/);
});

test('the terminal events and the mode are session-level: no turn, the mode follows', () => {
  const s = play([
    ev('terminalStarted', { turnId: '', terminalId: '7', command: ['bash', '-lc', 'sleep 9'], cwd: '/w', tty: true }),
    ev('terminalOutput', { turnId: '', terminalId: '7', data: 'x' }),
    ev('terminalExited', { turnId: '', terminalId: '7', exitCode: 0 }),
    ev('modeChanged', { turnId: '', mode: 'plan' }),
  ]);
  assert.equal(s.turns.length, 0);
  assert.equal(s.mode, 'plan');
  reduce(s, ev('modeChanged', { turnId: '', mode: 'bogus' as never }));
  assert.equal(s.mode, 'plan', 'an unknown mode changes nothing');
});

test('the queue shows each prompt with Edit, Remove and Send now; Resume when it waits', () => {
  assert.equal(renderQueue([], false), '');
  const html = renderQueue([{ turnId: 't"2', prompt: '<b>second</b>\u202e' }], false);
  assert.match(html, /data-turn="t&quot;2"/);
  assert.match(html, /&lt;b&gt;second&lt;\/b&gt;\\u202e/, 'escaped, hidden characters shown');
  for (const a of ['editQueued', 'removeQueued', 'sendNow']) assert.match(html, new RegExp(`data-action="${a}"`));
  assert.doesNotMatch(html, /resumeQueue/);
  const paused = renderQueue([{ turnId: 't2', prompt: 'second' }], true);
  assert.match(paused, /class="queue paused"/);
  assert.match(paused, /data-action="resumeQueue">Resume queue</);
});

test('the last turn of a plan offers Approve', () => {
  const s = play([ev('turnStarted', { prompt: 'plan it' }), ev('turnCompleted', { status: 'completed' })]);
  assert.doesNotMatch(renderTurn(s.turns[0]), /approvePlan/);
  assert.match(renderTurn(s.turns[0], true), /<button data-action="approvePlan">Approve plan<\/button>/);
});

test('a plan waits for approval once a turn in plan mode completed, until the mode changes or the approval waits', () => {
  const s = play([ev('modeChanged', { turnId: '', mode: 'plan' }), ev('turnStarted', { turnId: 't1', prompt: 'plan it', mode: 'plan' })]);
  assert.equal(planToApprove(s), false, 'the turn still runs');
  assert.match(renderTurn(s.turns[0]), /<div class="prompt"><span class="tag"[^>]*>plan<\/span> plan it/);
  reduce(s, ev('turnCompleted', { turnId: 't1', status: 'completed' }));
  assert.equal(planToApprove(s), true);
  reduce(s, ev('queueChanged', { turnId: '', items: [{ turnId: 't2', prompt: 'Plan approved', mode: 'default' }] }));
  assert.equal(planToApprove(s), false, 'approved already, waiting in the queue');
  const html = renderQueue(s.queue, false);
  assert.match(html, /Approved plan: carry it out/);
  assert.doesNotMatch(html, /sendNow|editQueued/, 'an approval is not sent into the turn nor edited');
  reduce(s, ev('queueChanged', { turnId: '', items: [] }));
  reduce(s, ev('modeChanged', { turnId: '', mode: 'default' }));
  assert.equal(planToApprove(s), false, 'default mode');
  const failed = play([ev('modeChanged', { sessionId: 's2', turnId: '', mode: 'plan' }), ev('turnStarted', { sessionId: 's2', turnId: 't1', mode: 'plan' }), ev('turnCompleted', { sessionId: 's2', turnId: 't1', status: 'interrupted' })]);
  assert.equal(planToApprove(failed), false, 'a stopped turn left no plan');
});
