import assert from 'node:assert/strict';
import { test } from 'node:test';
import { protocolNotice } from '../../src/protocolVersion';

test('a server of the protocol this extension speaks, or a newer minor, is not remarked on', () => {
  assert.equal(protocolNotice({ agent: { version: 1, minor: 1 } }, '1.0.0'), undefined);
  assert.equal(protocolNotice({ agent: { version: 1, minor: 4 } }), undefined);
});

test('an older server is told in one line, with what to update', () => {
  const old = protocolNotice({ agent: { version: 1 } }, 'v0.9');
  assert.equal(old, 'agent-ls v0.9 speaks protocol 1.0, older than the 1.1 this extension needs: update agent-ls (or clear agentLs.path to use the binary in the extension).');
  assert.match(protocolNotice(undefined) ?? '', /^agent-ls speaks protocol 0\.0, older than the 1\.1/);
});

test('a newer server is told in one line, asking for a newer extension', () => {
  const notice = protocolNotice({ agent: { version: 2, minor: 0 } }, '3.0.0');
  assert.equal(notice, 'agent-ls 3.0.0 speaks protocol 2.0, newer than the 1.x this extension supports: update the agent-ls extension.');
  assert.ok(!notice?.includes('\n'));
});
