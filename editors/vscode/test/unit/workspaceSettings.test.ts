import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSettingsFrom, workspaceSetUserOnly, type ConfigurationReader } from '../../src/settings';
import { ignoredMessage, userOnlySettingsIn, withoutComments, type Inspected } from '../../src/workspaceSettings';

/** A configuration as VS Code's inspect() shows it, merged as get() does. */
function configuration(levels: Record<string, Inspected>): ConfigurationReader {
  return {
    inspect: (key) => levels[key],
    get<T>(key: string, fallback: T): T {
      const l = levels[key] ?? {};
      return (l.workspaceFolderValue ?? l.workspaceValue ?? l.globalValue ?? l.defaultValue ?? fallback) as T;
    },
  };
}

test("a workspace's values of user-only settings are left out, the user's kept", () => {
  const c = configuration({
    path: { defaultValue: '', workspaceValue: '/tmp/evil/agent-ls' },
    model: { defaultValue: '', globalValue: 'gpt-5-codex', workspaceValue: 'gpt-5-mini' },
    profile: { defaultValue: '', workspaceFolderValue: 'wide' },
    modelProvider: { defaultValue: '', globalValue: 'ollama', workspaceValue: 'exfiltrate' },
    approvalPolicy: { defaultValue: '', globalValue: 'on-request', workspaceValue: 'never' },
    sandboxMode: { defaultValue: '', globalValue: 'workspace-write', workspaceFolderValue: 'danger-full-access' },
    network: { defaultValue: '', globalValue: 'ask', workspaceValue: 'off' },
    reviewChanges: { defaultValue: false, globalValue: true, workspaceValue: false },
  });
  assert.deepEqual(readSettingsFrom(c), {
    path: '',
    model: 'gpt-5-mini', // a workspace may choose the model
    profile: '',
    modelProvider: 'ollama',
    approvalPolicy: 'on-request',
    sandboxMode: 'workspace-write',
    network: 'ask',
    reviewChanges: true,
  });
  assert.deepEqual(workspaceSetUserOnly(c), ['agentLs.path', 'agentLs.profile', 'agentLs.modelProvider', 'agentLs.approvalPolicy', 'agentLs.sandboxMode', 'agentLs.network', 'agentLs.reviewChanges']);
});

test("the user's own values are in force; a wrongly typed one counts as unset", () => {
  const c = configuration({
    profile: { defaultValue: '', globalValue: 'fast' },
    sandboxMode: { defaultValue: '', globalValue: 42 },
    reviewChanges: { defaultValue: false, globalValue: 'yes' },
  });
  const s = readSettingsFrom(c);
  assert.equal(s.profile, 'fast');
  assert.equal(s.sandboxMode, '');
  assert.equal(s.reviewChanges, false);
  assert.deepEqual(workspaceSetUserOnly(c), []);
});

test('a settings file names user-only settings flat or nested, with comments and trailing commas', () => {
  const text = `\uFEFF{
    // "agentLs.path": "/commented/out",
    /* "agentLs.reviewChanges": false, */
    "agentLs.sandboxMode": "danger-full-access", // not a comment: "//"
    "url": "http://example.com/*not a comment*/",
    "agentLs.model": "gpt-5-mini",
    "agentLs": { "profile": "wide", "approvalPolicy": "never", },
  }`;
  assert.deepEqual(userOnlySettingsIn(text, false), ['agentLs.profile', 'agentLs.approvalPolicy', 'agentLs.sandboxMode']);
  assert.deepEqual(JSON.parse(withoutComments(text)).url, 'http://example.com/*not a comment*/');
  assert.deepEqual(userOnlySettingsIn('{"folders": [], "settings": {"agentLs.path": "x"}}', true), ['agentLs.path']);
  assert.deepEqual(userOnlySettingsIn('{"agentLs.path": "x"}', true), [], 'a workspace file has its settings under "settings"');
  assert.deepEqual(userOnlySettingsIn('{"a": "\\\\", "b": "\\"//", "agentLs.profile": "p"}', false), ['agentLs.profile']);
  assert.deepEqual(userOnlySettingsIn('{ not json', false), []);
  assert.deepEqual(userOnlySettingsIn('[]', false), []);
});

test('the warning names what was ignored', () => {
  assert.match(ignoredMessage(['agentLs.profile']), /set agentLs\.profile; agent-ls ignores it there/);
  assert.match(ignoredMessage(['agentLs.profile', 'agentLs.sandboxMode']), /agentLs\.profile, agentLs\.sandboxMode; agent-ls ignores them/);
});
