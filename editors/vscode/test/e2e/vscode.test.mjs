// The extension in a real VS Code (code-server), driven with Playwright:
// each scenario of the conversation view, approvals, edits, Stop and code
// actions, against agent-ls and its scripted model. Screenshots of each
// step go to test-output/.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test as nodeTest } from 'node:test';
import { execFileSync } from 'node:child_process';
import { launch, outDir, waitFor } from './harness.mjs';
import { approvedCommand, files, greetAfter, greetBefore, prompts, reviewAfter, reviewBefore, script, userConfig, workspaceBinary, workspaceBinaryMark, workspaceSettings } from './script.mjs';
import { ask, command, editorText, lastTurn, notificationButton, openFile, setBooleanSetting, statusShows, view } from './ui.mjs';

const apiKey = 'sk-vscode-test-7f3a9c';
let vs;

/** A scenario that leaves a screenshot of where it failed. */
function test(name, fn) {
  nodeTest(name, async () => {
    try {
      await fn();
    } catch (e) {
      await vs?.screenshot(`FAILED-${name.split(' ').slice(0, 4).join('-')}`).catch(() => undefined);
      throw e;
    }
  });
}

describe('agent-ls in VS Code', () => {
  before(async () => {
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    vs = await launch({
      script,
      files,
      userSettings: {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'files.autoSave': 'off', // VS Code's default; code-server's differs
        'git.openRepositoryInParentFolders': 'never',
        'agentLs.approvalPolicy': 'on-request',
        // Accept and Reject on each hunk of a reviewed change, in the diff
        // editor (VS Code shows no CodeLenses there unless asked to).
        'diffEditor.codeLens': true,
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  test('Set API Key stores the key where agent-ls gets it, never in settings or logs', async () => {
    const { page } = vs;
    await setApiKey(page);
    // The next test's answer shows the key reached agent-ls: without
    // one it refuses to call the model. Here: it is written nowhere a
    // workspace or a log would show it.
    const leaks = [];
    const walk = (d) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(json|log|txt)$/.test(e.name) && fs.readFileSync(p, 'utf8').includes(apiKey)) leaks.push(p);
      }
    };
    walk(path.join(vs.dirs.data, 'User'));
    walk(path.join(vs.dirs.data, 'logs'));
    walk(vs.dirs.workspace);
    assert.deepEqual(leaks, []);
  });

  test('ask a question in the view: the answer streams as Markdown, with the plan, reasoning and token use', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await view(page).locator('#prompt').waitFor();
    await ask(page, prompts.ask);
    const turn = lastTurn(page);
    // While it streams: part of the answer is there and the turn runs.
    await turn.locator('.message.streaming').waitFor();
    await vs.screenshot('ask-streaming');
    await turn.locator('.turn-end.working').waitFor({ state: 'detached' });
    await turn.locator('.message code', { hasText: 'console.log("rendered");' }).waitFor();
    assert.equal(await turn.locator('.message strong').innerText(), 'answer');
    assert.deepEqual(await turn.locator('.message li').allInnerTexts(), ['it streams', 'it renders']);
    assert.match(await turn.locator('.message pre code').innerText(), /console\.log\("rendered"\);/);
    assert.deepEqual(await turn.locator('.plan .step').allInnerTexts(), ['☑ Read the files', '◐ Write the answer']);
    assert.equal(await turn.locator('details.reasoning').getAttribute('open'), null, 'reasoning starts collapsed');
    assert.match(await view(page).locator('#usage').innerText(), /tokens/);
    await statusShows(page, /Agent · [\d.k]+ tokens/);
    await vs.screenshot('ask-done');
    // Hidden and shown again, the view still has the conversation.
    await command(page, 'View: Toggle Panel Visibility');
    await view(page).locator('#prompt').waitFor({ state: 'detached' });
    await command(page, 'View: Toggle Panel Visibility');
    await lastTurn(page).locator('.message code', { hasText: 'console.log("rendered");' }).waitFor();
    // The key set with Agent: Set API Key reached agent-ls, which sent it.
    const asked = vs.requests().filter((r) => JSON.stringify(r.body).includes('ZQASK'));
    assert.equal(asked.length, 2);
    for (const r of asked) assert.equal(r.authorization, `Bearer ${apiKey}`);
  });

  test('approve a command from the approval notification and see its output', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await ask(page, prompts.approve);
    const allow = await notificationButton(page, 'grep -c hello notes.txt', 'Allow Once');
    const toast = await page.locator('.notifications-toasts .notification-toast', { hasText: 'grep -c hello notes.txt' }).innerText();
    assert.match(toast, /count the greetings in notes\.txt/, 'the reason is shown');
    assert.match(toast, new RegExp(vs.dirs.workspace.replace(/[/.]/g, '\\$&')), 'the folder is shown');
    for (const b of ['Allow Always', 'Reject', 'Abort']) assert.ok(await page.locator('.notifications-toasts .monaco-button', { hasText: b }).count(), b);
    await statusShows(page, /Agent: needs approval/);
    await vs.screenshot('approval');
    await allow.click();
    const turn = lastTurn(page);
    await turn.locator('.card.tool.completed .output', { hasText: '2' }).waitFor();
    await turn.locator('.message', { hasText: 'notes.txt has 2 hellos.' }).waitFor();
    await vs.screenshot('approval-output');
    const told = vs.requests().filter((r) => r.step === 'approve-answer');
    assert.equal(told.length, 1);
    const outputs = told[0].body.input.filter((i) => i.type === 'function_call_output').map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
    assert.equal(outputs.length, 1);
    assert.match(outputs[0], /Exit code: 0[\s\S]*Output:\n2\s*$/, 'the model got the output');
    assert.ok(approvedCommand.every((w) => JSON.stringify(told[0].body).includes(w)));
  });

  test('a dangerous command asks in a modal dialog; Reject keeps the files and tells the model', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await ask(page, prompts.danger);
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'rm -rf build' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /dangerous/);
    const buttons = await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts();
    for (const b of ['Allow Once', 'Allow Always', 'Reject', 'Abort']) assert.ok(buttons.includes(b), b);
    assert.equal(await dialog.locator('.dialog-buttons .monaco-button:not(.secondary)').innerText(), 'Allow Once', 'Allow Once is the default button');
    // The view shows the same approval, with the same buttons.
    await view(page).locator('#approvals .card.approval', { hasText: 'rm -rf build' }).waitFor();
    await vs.screenshot('danger-modal');
    await dialog.locator('.dialog-buttons .monaco-button', { hasText: 'Reject' }).click();
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'I left build/ alone.' }).waitFor();
    await turn.locator('.card.tool.rejected').waitFor();
    assert.ok(fs.existsSync(path.join(vs.dirs.workspace, 'build', 'out.txt')));
    const told = vs.requests().find((r) => r.step === 'danger-answer');
    assert.match(JSON.stringify(told.body.input.at(-1)), /reject/i);
  });

  test('a patch lands in the open editor and on disk, and the Diff button opens the diff editor', async () => {
    const { page } = vs;
    await openFile(page, 'greet.js');
    assert.equal((await editorText(page)).trim(), greetBefore.trim());
    await command(page, 'Agent: New Session');
    await ask(page, prompts.patch);
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'The greeting is fixed.' }).waitFor();
    const change = turn.locator('.card.filechange .change');
    assert.match(await change.innerText(), /greet\.js\s+\+1\s+-1/);
    await waitFor('the editor to show the patch', async () => (await editorText(page)).includes('Grüß dich'));
    assert.equal((await editorText(page)).trim(), greetAfter.trim());
    // VS Code saves refactoring edits itself.
    const onDisk = path.join(vs.dirs.workspace, 'greet.js');
    await waitFor('greet.js to be saved', async () => fs.readFileSync(onDisk, 'utf8') === greetAfter);
    await vs.screenshot('patch-applied');
    await change.locator('button[data-action="diff"]').click();
    await page.locator('.monaco-diff-editor').first().waitFor();
    await page.locator('.tabs-container .tab.active', { hasText: 'greet.js (agent change)' }).waitFor();
    const originalLines = page.locator('.monaco-diff-editor .editor.original .view-lines').first();
    await waitFor('the diff editor to draw the original', async () => (await originalLines.innerText()).trim() !== '');
    const original = await originalLines.innerText();
    assert.match(original.replace(/\u00a0/g, ' '), /"Hallo, "/);
    await vs.screenshot('patch-diff');
  });

  test('Undo Last Turn restores the file', async () => {
    const { page } = vs;
    await command(page, 'Agent: Undo Last Turn');
    const onDisk = path.join(vs.dirs.workspace, 'greet.js');
    await waitFor('greet.js to be restored', async () => fs.readFileSync(onDisk, 'utf8') === greetBefore);
    await page.locator('.notifications-toasts', { hasText: 'restored 1 file' }).waitFor();
    await vs.screenshot('undo');
  });

  test('an agent edit keeps the unsaved text the user typed in the same file', async () => {
    const { page } = vs;
    await command(page, 'View: Close All Editors');
    await openFile(page, 'greet.js');
    await page.locator('.editor-instance:visible .view-line', { hasText: 'console.log(greet("Welt"));' }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('// mine', { delay: 20 });
    await page.locator('.tabs-container .tab.active.dirty', { hasText: 'greet.js' }).waitFor();
    await command(page, 'Agent: New Session');
    await ask(page, prompts.patchDirty);
    await lastTurn(page).locator('.message', { hasText: 'Fixed it again.' }).waitFor();
    const want = greetAfter.replace('console.log(greet("Welt"));\n', 'console.log(greet("Welt"));\n// mine\n');
    await waitFor('the editor to show the patch', async () => (await editorText(page)).includes('Grüß dich'));
    assert.equal((await editorText(page)).trim(), want.trim());
    await vs.screenshot('patch-dirty');
  });

  test('Stop ends a long turn: the command is killed and the turn shows it stopped', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await ask(page, prompts.stop);
    const turn = lastTurn(page);
    const card = turn.locator('.card.tool.running');
    await card.locator('.output', { hasText: 'tick 3' }).waitFor();
    await statusShows(page, /Agent: Run for i in/);
    await vs.screenshot('stop-running');
    await view(page).locator('#stop').click();
    await turn.locator('.turn-end.interrupted').waitFor();
    assert.equal(await view(page).locator('#stop').isHidden(), true);
    const ticks = (await turn.locator('.card.tool .output').innerText()).match(/tick \d+/g).length;
    assert.ok(ticks < 600, 'the command did not run to its end');
    assert.equal(vs.requests().filter((r) => JSON.stringify(r.body).includes('ZQSTOP')).length, 1, 'nothing more went to the model');
    await vs.screenshot('stop-stopped');
  });

  test('Stop while an approval is open dismisses it: the card goes, the turn stops, nothing runs', async () => {
    const { page } = vs;
    // The view's session picker: New session empties the view.
    const picker = view(page).locator('#session');
    const before = await picker.locator('option').count();
    await picker.selectOption({ label: 'New session' });
    await view(page).locator('#empty').waitFor();
    await waitFor('a new session in the picker', async () => (await picker.locator('option').count()) === before + 1);
    await ask(page, prompts.dismiss);
    const card = view(page).locator('#approvals .card.approval', { hasText: 'touch dismissed.txt' });
    await card.waitFor();
    await statusShows(page, /Agent: needs approval/);
    await vs.screenshot('dismiss-open');
    await view(page).locator('#stop').click();
    await lastTurn(page).locator('.turn-end.interrupted').waitFor();
    await card.waitFor({ state: 'detached' });
    await statusShows(page, /^\s*Agent( ·|$)/);
    await vs.screenshot('dismiss-stopped');
    assert.equal(fs.existsSync(path.join(vs.dirs.workspace, 'dismissed.txt')), false);
    assert.equal(vs.requests().filter((r) => JSON.stringify(r.body).includes('ZQDISMISS')).length, 1, 'nothing more went to the model');
  });

  test('a code action on a selection starts a turn whose answer appears in the view', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await openFile(page, 'math.js');
    await page.locator('.editor-instance:visible .view-line', { hasText: 'return a + b;' }).click();
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+End');
    // The lightbulb: Ctrl+. lists quick fixes only, and these are refactorings.
    await page.locator('.editor-instance:visible .lightBulbWidget').click();
    const item = page.locator('.action-widget .monaco-list-row', { hasText: 'Agent: Explain this' }).first();
    await item.waitFor();
    await vs.screenshot('code-action-menu');
    // The menu takes keys (a click races its pointer guard).
    const focused = page.locator('.action-widget .monaco-list-row.focused');
    for (let i = 0; i < 20 && !(await focused.innerText()).includes('Agent: Explain this'); i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'add returns the sum of a and b.' }).waitFor();
    assert.match(await turn.locator('.prompt').innerText(), /Explain what this code does\./);
    const req = vs.requests().find((r) => r.step === 'code-action');
    assert.ok(JSON.stringify(req.body).includes('return a + b;'), 'the selection went to the model');
    await vs.screenshot('code-action-answer');
  });

  test('Agent: Ask About Selection sends the selection with the question', async () => {
    const { page } = vs;
    // Focus the editor wherever it is scrolled, then select its first line.
    await command(page, 'View: Focus Active Editor Group');
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.locator('.statusbar-item', { hasText: /\(\d+ selected\)/ }).waitFor();
    await command(page, 'Agent: Ask About Selection');
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget', { hasText: 'Ask About Selection' }).waitFor();
    await input.fill(prompts.selection);
    await vs.screenshot('ask-about-selection');
    await input.press('Enter');
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'It adds a and b.' }).waitFor();
    const req = vs.requests().find((r) => r.step === 'selection');
    assert.ok(JSON.stringify(req.body).includes('function add(a, b) {'), 'the selection went to the model');
  });

  test('Agent: Show Log shows the server log', async () => {
    const { page } = vs;
    await command(page, 'Agent: Show Log');
    await page.locator('.part.panel .view-lines', { hasText: 'msg="turn ended"' }).first().waitFor();
    await vs.screenshot('log');
  });

  test('review a two-hunk change: accept one hunk in the diff editor, reject the other in the view, with a comment', async () => {
    const { page } = vs;
    // Turning the setting on restarts agent-ls, which the client now
    // tells it reviews changes.
    const before = serverPids();
    await setBooleanSetting(page, 'agentLs.reviewChanges', true);
    await waitFor('agent-ls to restart', async () => {
      const now = serverPids();
      return now.length > 0 && now.every((p) => !before.includes(p));
    });
    await vs.screenshot('review-setting');
    await command(page, 'View: Close Editor'); // the Settings editor
    await command(page, 'Agent: New Session');
    await ask(page, prompts.review);
    const card = view(page).locator('#approvals .card.review');
    await card.waitFor();
    assert.deepEqual(await card.locator('.hunk code').allInnerTexts(), ['@@ -1,5 +1,5 @@', '@@ -16,5 +16,5 @@']);
    await statusShows(page, /Agent: needs approval/);
    // The proposed change is open in the diff editor, with a CodeLens
    // on each hunk.
    await page.locator('.tabs-container .tab.active', { hasText: 'review.txt (proposed change)' }).waitFor();
    const modified = page.locator('.monaco-diff-editor .editor.modified').first();
    await modified.locator('.view-lines', { hasText: 'LINE 2' }).waitFor();
    await vs.screenshot('review-open');
    await modified.locator('.codelens-decoration a', { hasText: /^Accept$/ }).first().click();
    await card.locator('.hunk.accepted[data-hunk="0"]').waitFor();
    await modified.locator('.codelens-decoration', { hasText: 'Hunk 1: ✓ accepted' }).waitFor();
    await card.locator('.hunk[data-hunk="1"] button[data-review-action="reject"]').click();
    await card.locator('.hunk.rejected[data-hunk="1"]').waitFor();
    await card.locator('textarea.review-comment').fill('keep line 19 as it is');
    await vs.screenshot('review-decided');
    await card.locator('button[data-review-action="submit"]').click();
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'line 19 stays as you asked' }).waitFor();
    await card.waitFor({ state: 'detached' });
    assert.match(await turn.locator('.card.filechange.applied .change').innerText(), /review\.txt\s+\+1\s+-1/);
    const onDisk = path.join(vs.dirs.workspace, 'review.txt');
    await waitFor('review.txt to hold the accepted hunk only', async () => fs.readFileSync(onDisk, 'utf8') === reviewAfter);
    assert.notEqual(reviewAfter, reviewBefore);
    await vs.screenshot('review-applied');
    const told = vs.requests().find((r) => r.step === 'review-answer');
    const out = JSON.stringify(told.body.input.at(-1));
    assert.match(out, /accepted only part of it/);
    assert.match(out, /review\.txt: accepted hunk\(s\) @@ -1,5 \+1,5 @@; rejected hunk\(s\) @@ -16,5 \+16,5 @@ \(not applied\)/);
    assert.match(out, /-line 19\\n\+LINE 19/);
    assert.match(out, /The user's comment: keep line 19 as it is/);
  });

  test('a reload of the window brings the conversation back from agent-ls', async () => {
    const { page } = vs;
    await command(page, 'Developer: Reload Window');
    await page.waitForSelector('.monaco-workbench');
    await page.locator('.statusbar-item', { hasText: /Agent/ }).first().click();
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'line 19 stays as you asked' }).waitFor();
    assert.match(await turn.locator('.prompt').innerText(), /ZQREVIEW/);
    assert.match(await turn.locator('.card.filechange.applied').innerText(), /review\.txt/);
    await vs.screenshot('reload-restored');
  });
});

/** The agent-ls servers of this run's code-server, by pid. */
function serverPids() {
  try {
    return execFileSync('pgrep', ['-f', `${vs.dirs.exts}/.*/bin/agent-ls serve`], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // none
  }
}

/** Agent: Set API Key, as a user does it. */
async function setApiKey(page) {
  await command(page, 'Agent: Set API Key');
  const input = page.locator('.quick-input-widget input[type="password"]');
  await input.waitFor();
  await input.fill(apiKey);
  await vs.screenshot('api-key');
  await input.press('Enter');
  await page.locator('.notifications-toasts', { hasText: 'API key saved' }).waitFor();
}

describe('agent-ls in an untrusted workspace', () => {
  before(async () => {
    await vs?.close();
    vs = await launch({
      name: 'untrusted',
      untrusted: true,
      script,
      files,
      userSettings: {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': true,
        'security.workspace.trust.startupPrompt': 'never',
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'git.openRepositoryInParentFolders': 'never',
        // What the user chose for trusted workspaces: an untrusted one
        // runs read-only and asks, whatever these say.
        'agentLs.approvalPolicy': 'never',
        'agentLs.sandboxMode': 'danger-full-access',
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  test('the agent runs read-only and asks before a command that writes', async () => {
    const { page } = vs;
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).waitFor();
    await setApiKey(page);
    await command(page, 'Agent: New Session');
    await ask(page, prompts.untrusted);
    // Under "never" nothing would ask: the workspace's trust decided.
    const allow = await notificationButton(page, 'touch made.txt', 'Allow Once');
    assert.match(await page.locator('.notifications-toasts .notification-toast', { hasText: 'touch made.txt' }).innerText(), /untrusted/);
    await vs.screenshot('untrusted-approval');
    await allow.click();
    // Allowed, it still runs in the read-only sandbox, which refuses the
    // write; running it outside asks again, and the user says no.
    const reject = await notificationButton(page, 'Run it again without the sandbox', 'Reject');
    await vs.screenshot('untrusted-denied');
    await reject.click();
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'The workspace is read-only here.' }).waitFor();
    assert.match(await turn.locator('.card.tool').innerText(), /Permission denied|Read-only/);
    await vs.screenshot('untrusted-done');
    assert.equal(fs.existsSync(path.join(vs.dirs.workspace, 'made.txt')), false, 'the read-only sandbox kept the file from being made');
    const first = JSON.stringify(vs.requests().find((r) => r.step === 'untrusted-run').body);
    assert.match(first, /<approval_policy>untrusted<\/approval_policy>/);
    assert.match(first, /<sandbox_mode>read-only<\/sandbox_mode>/);
  });
});

describe('agent-ls in a workspace whose settings choose the binary, the profile and the policies', () => {
  before(async () => {
    await vs?.close();
    vs = await launch({
      name: 'workspace-settings',
      script,
      files: { ...files, '.vscode/settings.json': workspaceSettings, 'tools/agent-ls': workspaceBinary },
      homeFiles: { '.config/agent-ls/config.toml': userConfig },
      userSettings: {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': false,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'git.openRepositoryInParentFolders': 'never',
      },
    });
  });
  after(async () => {
    await vs?.close();
  });

  test("the repository's binary, profile and policies are not used, and the user is told", async () => {
    const { page } = vs;
    const warning = page.locator('.notifications-toasts .notification-toast', { hasText: 'agent-ls ignores them' });
    await warning.waitFor();
    const text = await warning.innerText();
    for (const k of ['agentLs.path', 'agentLs.profile', 'agentLs.approvalPolicy', 'agentLs.sandboxMode']) assert.match(text, new RegExp(k.replace('.', '\\.')), k);
    assert.doesNotMatch(text, /agentLs\.model/);
    await vs.screenshot('workspace-settings-warning');
    await setApiKey(page);
    await command(page, 'Agent: New Session');
    await ask(page, prompts.workspaceSettings);
    await lastTurn(page).locator('.message', { hasText: 'Your own settings are in force.' }).waitFor();
    // The extension's own agent-ls ran, with the user's settings (none:
    // its defaults), not the binary, profile or policies the workspace named.
    assert.equal(fs.existsSync(path.join(vs.dirs.workspace, workspaceBinaryMark)), false, "the workspace's binary did not run");
    const req = vs.requests().find((r) => r.step === 'workspace-settings');
    assert.notEqual(req.body.model, 'wide-profile-model', 'the profile the workspace named was not used');
    const body = JSON.stringify(req.body);
    assert.match(body, /<approval_policy>on-request<\/approval_policy>/);
    assert.match(body, /<sandbox_mode>workspace-write<\/sandbox_mode>/);
    await vs.screenshot('workspace-settings-turn');
  });
});
