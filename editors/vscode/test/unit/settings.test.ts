import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { approvalPrompt, commandLine, isDangerous } from '../../src/approval';
import { agentSettings, configurationChange, needsRestart, serverCommand, serverEnvironment, type Settings } from '../../src/settings';
import { statusText as statusTextFor } from '../../src/statusText';
import { userOnlySettings } from '../../src/workspaceSettings';

const base: Settings = { path: '', model: 'gpt-5-codex', profile: '', modelProvider: '', approvalPolicy: 'never', sandboxMode: 'danger-full-access', network: '', reviewChanges: false };

test('settings go to agent-ls in camelCase, empty ones left out', () => {
  assert.deepEqual(agentSettings(base, true), { model: 'gpt-5-codex', approvalPolicy: 'never', sandboxMode: 'danger-full-access' });
  assert.deepEqual(configurationChange({ model: 'm' }), { settings: { agentLs: { model: 'm' } } });
  assert.deepEqual(agentSettings({ ...base, network: 'off' }, true).network, 'off');
});

test("agentLs.modelProvider goes to agent-ls as modelProvider, and only from the user's settings", () => {
  assert.equal(agentSettings({ ...base, modelProvider: 'ollama' }, true).modelProvider, 'ollama');
  assert.equal(agentSettings(base, true).modelProvider, undefined);
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  assert.equal(pkg.contributes.configuration.properties['agentLs.modelProvider'].scope, 'machine');
  assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('agentLs.modelProvider'));
  assert.ok(userOnlySettings.includes('modelProvider'));
});

test('an untrusted workspace runs read-only and asks, whatever the settings say', () => {
  assert.deepEqual(agentSettings(base, false), { model: 'gpt-5-codex', approvalPolicy: 'untrusted', sandboxMode: 'read-only' });
});

test('the API key goes into the environment, which is otherwise passed unchanged', () => {
  const env = serverEnvironment({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', PATH: '/bin' }, 'sk-1');
  assert.deepEqual(env, { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', PATH: '/bin', OPENAI_API_KEY: 'sk-1' });
  assert.deepEqual(serverEnvironment({ OPENAI_API_KEY: 'from-env' }, undefined), { OPENAI_API_KEY: 'from-env' });
});

test('the binary: agentLs.path, else the packaged one, else PATH', () => {
  assert.equal(serverCommand({ ...base, path: '/opt/agent-ls' }, '/ext/bin/agent-ls'), '/opt/agent-ls');
  assert.equal(serverCommand(base, '/ext/bin/agent-ls'), '/ext/bin/agent-ls');
  assert.equal(serverCommand(base, undefined), 'agent-ls');
  assert.equal(needsRestart(base, { ...base, path: '/x' }), true);
  assert.equal(needsRestart(base, { ...base, model: 'other' }), false);
  // Review is a capability the client declares at initialize.
  assert.equal(needsRestart(base, { ...base, reviewChanges: true }), true);
});

test('settings a workspace may not choose are machine-scoped and restricted in untrusted workspaces', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const props = pkg.contributes.configuration.properties;
  for (const name of userOnlySettings) {
    const k = `agentLs.${name}`;
    assert.ok(['machine', 'application'].includes(props[k]?.scope), `${k} is scoped ${props[k]?.scope}`);
    if (k === 'agentLs.reviewChanges') continue; // turning it on is always safe
    assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(k), k);
  }
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  // Every setting is decided: user-only, or one a workspace may set.
  const workspaceSettable = ['agentLs.model'];
  assert.deepEqual(Object.keys(props).sort(), [...userOnlySettings.map((k) => `agentLs.${k}`), ...workspaceSettable].sort());
  for (const k of workspaceSettable) assert.equal(props[k].scope, undefined, k);
  // Lazy: activated after start-up, by a command or by the view only.
  assert.deepEqual(pkg.activationEvents, ['onStartupFinished']);
});

test('an exec approval shows the command, folder and reason; Allow Once comes first', () => {
  const p = approvalPrompt({
    sessionId: 's', turnId: 't', approvalId: 'a', kind: 'exec', command: ['grep', '-c', 'two words', 'f'], cwd: 'file:///w/my%20dir',
    reason: 'check it', options: ['allowOnce', 'allowAlways', 'rejectOnce', 'rejectAlways'],
  });
  assert.equal(p.message, "Agent wants to run: grep -c 'two words' f (in /w/my dir; check it)");
  assert.deepEqual(p.choices.map((c) => c.title), ['Allow Once', 'Allow Always', 'Reject', 'Abort']);
  assert.equal(p.modal, false);
});

test('a dangerous command asks in a modal; a patch offers Show Diff', () => {
  const d = approvalPrompt({ sessionId: 's', turnId: 't', approvalId: 'a', kind: 'exec', command: ['rm', '-rf', 'x'], cwd: 'file:///w', reason: 'This command is dangerous: rm -rf deletes files.', options: ['allowOnce', 'rejectOnce'] });
  assert.equal(d.modal, true);
  assert.equal(isDangerous({ sessionId: 's', turnId: 't', approvalId: 'a', kind: 'patch', reason: 'dangerous' }), false);
  assert.deepEqual(d.choices.map((c) => c.decision), ['allowOnce', 'rejectOnce', 'abort']);
  assert.equal(d.detail, 'in /w\nThis command is dangerous: rm -rf deletes files.');
  const p = approvalPrompt({ sessionId: 's', turnId: 't', approvalId: 'a', kind: 'patch', files: ['file:///w/a.go', 'file:///w/b.go'], diff: '--- a/a.go', reason: 'outside the workspace' });
  assert.equal(p.message, 'Agent wants to change 2 files (/w/a.go\n/w/b.go; outside the workspace)');
  assert.deepEqual(p.choices.at(-1), { title: 'Show Diff', showDiff: true });
  // Quoted as agent-ls quotes it (mvdan.cc/sh's syntax.Quote, bash).
  assert.equal(commandLine(["it's"]), `"it's"`);
});

test('status bar text', () => {
  assert.deepEqual(statusTextFor(undefined, 0, ''), { text: '$(hubot) Agent', state: 'idle' });
  assert.deepEqual(statusTextFor('Run go test', 0, '', 1), { text: '$(bell-dot) Agent: asks you', state: 'approval' });
  assert.deepEqual(statusTextFor('Run go test', 0, '1.2k tokens'), { text: '$(sync~spin) Agent: Run go test · 1.2k tokens', state: 'working' });
  assert.deepEqual(statusTextFor('Run go test', 1, ''), { text: '$(bell-dot) Agent: needs approval', state: 'approval' });
});

test('a network question offers once, this session, the config entry and deny, never abort', () => {
  const p = approvalPrompt({
    sessionId: 's', turnId: 't', approvalId: 'a', kind: 'network', host: 'registry.npmjs.org', port: 443, command: 'npm install',
    patterns: ['registry.npmjs.org', '*.npmjs.org'], reason: 'The command npm install wants to connect to registry.npmjs.org:443.',
    options: ['allowOnce', 'allowAlways', 'allowPersist', 'rejectOnce'],
  });
  assert.deepEqual(p.choices.map((c) => c.decision), ['allowOnce', 'allowAlways', 'allowPersist', 'allowPersist', 'rejectOnce']);
  assert.equal(p.choices[2].title, 'Always Allow registry.npmjs.org');
  assert.equal(p.choices[2].pattern, 'registry.npmjs.org');
  assert.equal(p.choices[3].title, 'Always Allow *.npmjs.org');
  assert.equal(p.choices[3].pattern, '*.npmjs.org');
  assert.match(p.message, /connect to registry\.npmjs\.org:443/);
});
