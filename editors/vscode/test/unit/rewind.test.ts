import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyState, reduce } from '../../src/conversation';
import type { AgentEvent } from '../../src/protocol';
import { renderTurn } from '../../src/render';

test('each finished turn offers Restore checkpoint; a rewound event marks turns rewound and takes it away', () => {
  const s = emptyState();
  const ev = (e: Partial<AgentEvent>) => reduce(s, { sessionId: 's', turnId: '', seq: 0, type: 'message', ...e } as AgentEvent);
  ev({ turnId: 't1', seq: 1, type: 'turnStarted', prompt: 'one' });
  ev({ turnId: 't1', seq: 2, type: 'turnCompleted', status: 'completed' });
  ev({ turnId: 't2', seq: 3, type: 'turnStarted', prompt: 'two' });
  assert.match(renderTurn(s.turns[0]), /<button data-action="rewind" data-turn="t1"[^>]*>Restore checkpoint<\/button>/);
  assert.doesNotMatch(renderTurn(s.turns[1]), /Restore checkpoint/, 'a running turn has no checkpoint to restore yet');
  ev({ turnId: 't2', seq: 4, type: 'turnCompleted', status: 'completed' });
  ev({ turnId: '', seq: 5, type: 'rewound', turnIds: ['t2'] });
  assert.equal(s.turns[0].rewound, undefined);
  assert.equal(s.turns[1].rewound, true);
  const html = renderTurn(s.turns[1]);
  assert.match(html, /class="turn completed rewound"/);
  assert.match(html, />rewound<\/span>/);
  assert.doesNotMatch(html, /Restore checkpoint/);
});

test('each finished turn offers Edit prompt with its prompt, escaped; a running or rewound turn does not', () => {
  const s = emptyState();
  const ev = (e: Partial<AgentEvent>) => reduce(s, { sessionId: 's', turnId: '', seq: 0, type: 'message', ...e } as AgentEvent);
  const prompt = 'make "add" <explicit> & fast\nsecond line';
  ev({ turnId: 't1', seq: 1, type: 'turnStarted', prompt });
  assert.doesNotMatch(renderTurn(s.turns[0]), /editPrompt/, 'a running turn cannot be edited yet');
  ev({ turnId: 't1', seq: 2, type: 'turnCompleted', status: 'completed' });
  const m = renderTurn(s.turns[0]).match(/<button[^>]*data-action="editPrompt" data-turn="t1" data-prompt="([^"]*)"[^>]*>Edit prompt<\/button>/);
  assert.ok(m, 'no Edit prompt button');
  assert.equal(decodeURIComponent(m[1]), prompt, 'the prompt rides in the button, encoded (no markup, no hidden character in the page)');
  ev({ turnId: '', seq: 3, type: 'rewound', turnIds: ['t1'] });
  assert.doesNotMatch(renderTurn(s.turns[0]), /editPrompt/);
});
