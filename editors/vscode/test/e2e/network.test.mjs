// The extension in a real VS Code (code-server), driven with Playwright:
// a sandboxed command asks for the network (network = "ask", the
// default) and the user allows it once from the notification.
import assert from 'node:assert/strict';
import * as http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { launch } from './harness.mjs';
import { files } from './script.mjs';
import { ask, command, lastTurn, notificationButton, view } from './ui.mjs';

const apiKey = 'sk-vscode-test-network-3d1e';
let vs;
let registry;
let port;
const served = [];

/** The scripted model: curl to the test's registry, then an answer. */
function networkScript(url) {
  return {
    steps: [
      {
        name: 'net-run',
        bodyContains: 'ZQNET',
        reply: { items: [{ type: 'function_call', callId: 'net1', name: 'shell', arguments: { command: ['curl', '-sS', '-w', ' %{http_code}', url] } }] },
      },
      { name: 'net-answer', bodyContains: 'ZQNET', reply: { items: [{ type: 'message', text: 'The registry answered.' }] } },
    ],
  };
}

describe('agent-ls in VS Code: the network on demand', () => {
  before(async () => {
    // The "registry": a loopback server of the test, a service on this
    // machine, which agent-ls asks about before any command reaches it.
    registry = http.createServer((req, res) => {
      served.push(req.url);
      res.end(`REGISTRY ${req.url}`);
    });
    await new Promise((resolve) => registry.listen(0, '127.0.0.1', resolve));
    port = registry.address().port;
    vs = await launch({
      name: 'network',
      script: networkScript(`http://127.0.0.1:${port}/pkg`),
      files,
      userSettings: {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'git.openRepositoryInParentFolders': 'never',
        'agentLs.approvalPolicy': 'on-request',
      },
    });
    const { page } = vs;
    await command(page, 'Agent: Set API Key');
    const input = page.locator('.quick-input-widget input[type="password"]');
    await input.fill(apiKey);
    await input.press('Enter');
    await page.locator('.notifications-toasts', { hasText: 'API key saved' }).waitFor();
  });
  after(async () => {
    await vs?.close();
    registry?.close();
  });

  test('a sandboxed curl to a local server asks for the host; Allow Once lets it through', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await view(page).locator('#empty').waitFor();
    await ask(page, 'ZQNET fetch the package');
    const where = `127.0.0.1:${port}`;
    const allow = await notificationButton(page, where, 'Allow Once');
    const toast = await page.locator('.notifications-toasts .notification-toast', { hasText: where }).first().innerText();
    assert.match(toast, /curl/, 'the command that connects is named');
    assert.match(toast, /on this machine/, 'a local service is said to be one');
    for (const b of ['Allow for This Session', `Always Allow ${where}`, 'Deny']) {
      assert.ok(await page.locator('.notifications-toasts .monaco-button', { hasText: b }).count(), b);
    }
    assert.deepEqual(served, [], 'nothing reached the server before the answer');
    await vs.screenshot('network-question');
    await allow.click();
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'The registry answered.' }).waitFor();
    await vs.screenshot('network-allowed');
    assert.deepEqual(served, ['/pkg']);
    const told = vs.requests().filter((r) => r.step === 'net-answer');
    assert.equal(told.length, 1);
    const outputs = told[0].body.input.filter((i) => i.type === 'function_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
    assert.match(outputs[0], /REGISTRY \/pkg 200/, 'the command got the answer');
  });
});
