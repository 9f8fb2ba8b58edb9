import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addUsage, byteCount, currentStep, emptyState, reduce, usageLabel, type State } from '../../src/conversation';
import type { AgentEvent } from '../../src/protocol';

let seq = 0;
function ev(type: string, fields: Partial<AgentEvent> = {}): AgentEvent {
  return { sessionId: 's1', turnId: 't1', seq: ++seq, type, ...fields } as AgentEvent;
}

function play(events: AgentEvent[], s: State = emptyState()): State {
  for (const e of events) reduce(s, e);
  return s;
}

test('deltas stream into one message; the whole text wins at the end', () => {
  const s = play([
    ev('turnStarted', { prompt: 'hi' }),
    ev('messageDelta', { itemId: 'm1', delta: 'Hel' }),
    ev('messageDelta', { itemId: 'm1', delta: 'lo' }),
  ]);
  assert.deepEqual(s.turns[0].items, [{ kind: 'message', itemId: 'm1', text: 'Hello', done: false }]);
  assert.equal(currentStep(s), 'Writing the answer');
  reduce(s, ev('message', { itemId: 'm1', text: 'Hello, world' }));
  reduce(s, ev('messageDelta', { itemId: 'm1', delta: ' late' })); // a retried stream's leftover
  assert.deepEqual(s.turns[0].items, [{ kind: 'message', itemId: 'm1', text: 'Hello, world', done: true }]);
});

test('a command card collects live output and its result', () => {
  const s = play([
    ev('turnStarted', { prompt: 'run' }),
    ev('toolCall', { callId: 'c1', tool: 'shell', kind: 'execute', title: 'Run go test' }),
    ev('execOutput', { callId: 'c1', stream: 'stdout', chunk: 'ok 1\n' }),
  ]);
  assert.equal(currentStep(s), 'Run go test');
  reduce(s, ev('execOutput', { callId: 'c1', stream: 'stderr', chunk: 'ok 2\n' }));
  reduce(s, ev('toolResult', { callId: 'c1', tool: 'shell', status: 'completed', output: 'Exit code: 0', durationMs: 1200 }));
  assert.deepEqual(s.turns[0].items[0], { kind: 'tool', callId: 'c1', tool: 'shell', toolKind: 'execute', title: 'Run go test', output: 'ok 1\nok 2\n', status: 'completed', durationMs: 1200 });
});

test('update_plan shows as one plan, updated in place, not as a tool card', () => {
  const s = play([
    ev('turnStarted', { prompt: 'p' }),
    ev('toolCall', { callId: 'u1', tool: 'update_plan', kind: 'think', title: 'Plan' }),
    ev('plan', { steps: [{ step: 'a', status: 'in_progress' }] }),
    ev('toolResult', { callId: 'u1', tool: 'update_plan', status: 'completed', output: '' }),
    ev('plan', { steps: [{ step: 'a', status: 'completed' }, { step: 'b', status: 'pending' }] }),
  ]);
  assert.deepEqual(s.turns[0].items, [{ kind: 'plan', explanation: undefined, steps: [{ step: 'a', status: 'completed' }, { step: 'b', status: 'pending' }] }]);
});

test('a file change is updated by its callId; interrupt ends running cards', () => {
  const s = play([
    ev('turnStarted', { prompt: 'p' }),
    ev('fileChange', { callId: 'p1', changes: [{ uri: 'file:///w/a.go', kind: 'update', additions: 2, deletions: 1 }], diff: 'd', status: 'proposed' }),
    ev('fileChange', { callId: 'p1', changes: [{ uri: 'file:///w/a.go', kind: 'update', additions: 2, deletions: 1 }], diff: 'd', status: 'applied' }),
    ev('toolCall', { callId: 'c2', tool: 'shell', kind: 'execute', title: 'sleep' }),
    ev('turnCompleted', { status: 'interrupted' }),
  ]);
  const t = s.turns[0];
  assert.equal(t.items.length, 2);
  assert.equal(t.items[0].kind === 'fileChange' && t.items[0].status, 'applied');
  assert.equal(t.items[1].kind === 'tool' && t.items[1].status, 'failed');
  assert.equal(t.status, 'interrupted');
  assert.equal(currentStep(s), undefined);
});

test('events of another session leave the state alone', () => {
  const s = play([ev('turnStarted', { prompt: 'mine' })]);
  reduce(s, { ...ev('turnStarted', { prompt: 'other' }), sessionId: 's2', turnId: 'x' });
  assert.deepEqual(s.turns.map((t) => t.prompt), ['mine']);
});

test('usage adds up responses when the server sends no total', () => {
  let u = addUsage(undefined, ev('usage', { inputTokens: 1000, cachedInputTokens: 0, outputTokens: 200, reasoningTokens: 10 }));
  u = addUsage(u, ev('usage', { inputTokens: 1500, cachedInputTokens: 1000, outputTokens: 300, reasoningTokens: 0 }));
  assert.deepEqual(u.total, { inputTokens: 2500, cachedInputTokens: 1000, outputTokens: 500, reasoningTokens: 10 });
  assert.equal(u.contextTokens, 1500);
  assert.equal(usageLabel(u), '3.0k tokens');
  const withTotal = addUsage(u, ev('usage', { inputTokens: 1, outputTokens: 1, total: { inputTokens: 9000, cachedInputTokens: 0, outputTokens: 1000, reasoningTokens: 0 }, contextTokens: 5000, contextWindow: 10000 }));
  assert.equal(usageLabel(withTotal), '10k tokens · 50% of context');
  const limited = addUsage(withTotal, ev('usage', { inputTokens: 1, outputTokens: 1, contextTokens: 5000, rateLimits: { remainingRequests: 40, remainingTokens: 1200, limitTokens: 30000 } }));
  assert.equal(usageLabel(limited), '10k tokens · 50% of context · 40 req, 1.2k tok left');
  // A response without the headers keeps what the last one said.
  assert.equal(usageLabel(addUsage(limited, ev('usage', { inputTokens: 1, outputTokens: 1, contextTokens: 5000 }))), '10k tokens · 50% of context · 40 req, 1.2k tok left');
});

test('a web search is a notice of its query, status and sources, searching until it ends', () => {
  const s = emptyState('s1');
  reduce(s, ev('turnStarted', { prompt: 'is go 1.25 out?' }));
  reduce(s, ev('webSearch', { callId: 'ws1', status: 'searching' }));
  assert.deepEqual(s.turns[0].items.at(-1), { kind: 'notice', text: 'Searching the web… (searching)', callId: 'ws1' });
  const n = s.turns[0].items.length;
  reduce(s, ev('webSearch', { callId: 'ws1', query: 'go 1.25 release', status: 'completed', sources: [{ url: 'https://go.dev/doc/go1.25' }] }));
  assert.equal(s.turns[0].items.length, n, 'the end of the search takes the place of its start');
  assert.deepEqual(s.turns[0].items.at(-1), { kind: 'notice', text: 'Web search: go 1.25 release (completed) — https://go.dev/doc/go1.25', callId: 'ws1' });
});

test('a connection through the network proxy is a notice of its host, decision and bytes; one between turns is left to its terminal', () => {
  const s = emptyState('s1');
  reduce(s, ev('turnStarted', { prompt: 'npm install' }));
  reduce(s, ev('networkAccess', { callId: 'c1', host: 'registry.npmjs.org', port: 443, decision: 'allowed', bytes: 1234567 }));
  assert.deepEqual(s.turns[0].items.at(-1), { kind: 'notice', text: 'Network: registry.npmjs.org:443 allowed, 1.2 MB' });
  reduce(s, ev('networkAccess', { callId: 'c1', host: '::1', port: 8080, decision: 'denied', bytes: 0 }));
  assert.deepEqual(s.turns[0].items.at(-1), { kind: 'notice', text: 'Network: [::1]:8080 denied' });
  const before = s.turns.length;
  reduce(s, { ...ev('networkAccess', { terminalId: '1000', host: 'example.com', port: 80, decision: 'allowed', bytes: 10 }), turnId: '' });
  assert.equal(s.turns.length, before);
  assert.equal(byteCount(999), '999 B');
  assert.equal(byteCount(1500), '1.5 kB');
});
