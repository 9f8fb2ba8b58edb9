// The extension in a real VS Code (code-server), driven with Playwright,
// while the agent works: its command sessions as terminals, prompts
// queued and steered into the running turn, the model's questions, plan
// mode and the notifications when a turn ends out of sight.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test as nodeTest } from 'node:test';
import { launch, waitFor } from './harness.mjs';
import { files } from './script.mjs';
import { mathAfter, questions, workPrompts, workScript } from './work-script.mjs';
import { ask, command, editorText, lastTurn, notificationButton, openFile, statusShows, view } from './ui.mjs';

const apiKey = 'sk-vscode-test-work-51c2';
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

/** Makes a file in the workspace: the scripted commands wait for one. */
function touch(name) {
  fs.writeFileSync(path.join(vs.dirs.workspace, name), '');
}

/** The body of every request the model got, as text. */
function bodies(step) {
  return vs
    .requests()
    .filter((r) => !step || r.step === step)
    .map((r) => JSON.stringify(r.body));
}

/** Shows the conversation view again (after the terminal took the panel). */
async function showView(page) {
  await page.locator('.statusbar-item', { hasText: /Agent/ }).first().click();
  await view(page).locator('#prompt').waitFor();
}

/** Brings the agent's terminal named name to the front; its rows. */
async function openTerminal(page, name) {
  if (!(await page.locator('.terminal-tabs-entry').first().isVisible())) await command(page, 'View: Toggle Terminal');
  const tab = page.locator('.terminal-tabs-entry', { hasText: name }).first();
  await tab.waitFor();
  await tab.click();
  return page.locator('.terminal-wrapper.active .xterm-rows');
}

/** Whether a process whose command line has text runs on this machine. */
function running(text) {
  try {
    execFileSync('pgrep', ['-f', text]);
    return true;
  } catch {
    return false;
  }
}

/** Starts a new session from the view and sends the prompt. */
async function newTurn(page, prompt) {
  await command(page, 'Agent: New Session');
  await view(page).locator('#empty').waitFor();
  await ask(page, prompt);
}

describe('agent-ls in VS Code while the agent works', () => {
  before(async () => {
    vs = await launch({
      name: 'work',
      script: workScript,
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
        // The terminal's text in the DOM, where the test reads it, and
        // the terminals' tabs listed even when there is one.
        'terminal.integrated.gpuAcceleration': 'off',
        'terminal.integrated.tabs.hideCondition': 'never',
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
  });

  test('@ in the input completes a file; the chosen file goes with the prompt and shows as a chip', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await view(page).locator('#empty').waitFor();
    const box = view(page).locator('#prompt');
    await box.click();
    await box.pressSequentially(`${workPrompts.mention} @mat`);
    const item = view(page).locator('#mentions li', { hasText: '@math.js' }).first();
    await item.waitFor();
    await box.press('Tab');
    assert.equal(await box.inputValue(), `${workPrompts.mention} @math.js `);
    await box.press('Enter');
    await lastTurn(page).locator('.mention-chip', { hasText: '@math.js' }).waitFor();
    await lastTurn(page).getByText('It adds two numbers.').waitFor();
    const sent = bodies('mention').join('\n');
    assert.match(sent, /function add\(a, b\)/, 'the file reached the model');
  });

  test('a command the agent runs on shows as a terminal named after it, marked ended when it exits', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.terminal);
    await lastTurn(page).locator('.message', { hasText: 'The watcher runs in a terminal.' }).waitFor();
    // The terminal is listed, not brought to the front.
    const rows = await openTerminal(page, 'Agent: echo hello-from-agent');
    await rows.filter({ hasText: 'hello-from-agent' }).waitFor();
    await vs.screenshot('terminal-running');
    touch('term-go');
    await rows.filter({ hasText: 'bye-from-agent' }).waitFor();
    await rows.filter({ hasText: 'The command exited with code 0' }).waitFor();
    await vs.screenshot('terminal-ended');
    // Ended, it stays readable.
    assert.match(await rows.innerText(), /hello-from-agent[\s\S]*bye-from-agent/);
    await showView(page);
  });

  test('what the user types in the terminal goes to the command', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.type);
    await lastTurn(page).locator('.message', { hasText: 'It waits for a name.' }).waitFor();
    const rows = await openTerminal(page, "Agent: read -r -p 'name? ' n; echo hi-$n");
    await rows.filter({ hasText: 'name?' }).waitFor();
    await page.locator('.terminal-wrapper.active .xterm').click();
    await page.keyboard.type('ada');
    await page.keyboard.press('Enter');
    await rows.filter({ hasText: 'hi-ada' }).waitFor();
    await rows.filter({ hasText: 'The command exited with code 0' }).waitFor();
    await vs.screenshot('terminal-typed');
    await showView(page);
  });

  test('closing a running terminal stops its command; Agent: Stop Terminals stops the rest', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.kill);
    await lastTurn(page).locator('.message', { hasText: 'Both run on.' }).waitFor();
    assert.equal(running('sleep 313'), true);
    await openTerminal(page, 'Agent: echo long-one; sleep 313');
    await command(page, 'Terminal: Kill the Active Terminal Instance');
    await page.locator('.terminal-tabs-entry', { hasText: 'Agent: echo long-one' }).waitFor({ state: 'detached' });
    await waitFor('the closed terminal\'s command to end', async () => !running('sleep 313'));
    assert.equal(running('sleep 317'), true, 'the other one runs on');
    const rows = await openTerminal(page, 'Agent: echo long-two; sleep 317');
    await command(page, 'Agent: Stop Terminals');
    await page.locator('.notifications-toasts', { hasText: 'Agent: stopped 1 command.' }).waitFor();
    await rows.filter({ hasText: /The command (was killed|exited)/ }).waitFor();
    assert.equal(running('sleep 317'), false);
    await vs.screenshot('terminal-stopped');
    await showView(page);
  });

  test('prompts sent while a turn runs queue under the input: edit, remove, Send now and steer', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.queue);
    const first = view(page).locator('section.turn').first();
    await first.locator('.card.tool.running').waitFor();
    assert.equal(await view(page).locator('#send').innerText(), 'Queue');
    for (const p of ['ZQQUEUE-A', 'ZQQUEUE-B', 'ZQQUEUE-C']) await ask(page, p);
    const rows = view(page).locator('#queue .queued');
    await waitFor('three queued prompts', async () => (await rows.count()) === 3);
    assert.deepEqual(await rows.locator('.queued-text').allInnerTexts(), ['ZQQUEUE-A', 'ZQQUEUE-B', 'ZQQUEUE-C']);
    await vs.screenshot('queue-three');
    // Edit the first.
    await rows.nth(0).locator('button[data-action="editQueued"]').click();
    const box = view(page).locator('#queue textarea.queued-edit');
    await box.fill('ZQQUEUE-A edited');
    await box.press('Enter');
    await rows.nth(0).locator('.queued-text', { hasText: 'ZQQUEUE-A edited' }).waitFor();
    // Remove the second.
    await rows.nth(1).locator('button[data-action="removeQueued"]').click();
    await waitFor('two queued prompts', async () => (await rows.count()) === 2);
    // Send the third now: it goes into the running turn.
    await rows.nth(1).locator('button[data-action="sendNow"]').click();
    await waitFor('one queued prompt', async () => (await rows.count()) === 1);
    // Ctrl+Enter steers the running turn.
    const prompt = view(page).locator('#prompt');
    await prompt.fill('ZQQUEUE-D steer into the turn');
    await prompt.press('Control+Enter');
    await waitFor('the box emptied', async () => (await prompt.inputValue()) === '');
    assert.equal(await rows.count(), 1, 'a steer does not queue');
    await vs.screenshot('queue-edited');
    // The command ends: the steered messages land in the first turn,
    // before the model's next request, then the queued prompt runs.
    touch('queue-go');
    await first.locator('.message', { hasText: 'The build is done, and I read your notes.' }).waitFor();
    assert.deepEqual(await first.locator('.prompt.steered').allInnerTexts(), [
      'You, while it worked:\nZQQUEUE-C',
      'You, while it worked:\nZQQUEUE-D steer into the turn',
    ]);
    const next = lastTurn(page);
    await next.locator('.message', { hasText: 'The queued prompt ran.' }).waitFor();
    assert.match(await next.locator('.prompt').first().innerText(), /^ZQQUEUE-A edited$/);
    await view(page).locator('#queue .queued').first().waitFor({ state: 'detached' });
    await vs.screenshot('queue-done');
    const [told] = bodies('queue-first-done');
    assert.match(told, /ZQQUEUE-C/);
    assert.match(told, /ZQQUEUE-D steer into the turn/);
    assert.doesNotMatch(told, /ZQQUEUE-A/, 'the queued prompt waited for its own turn');
    assert.match(bodies('queue-next')[0], /ZQQUEUE-A edited/);
    assert.ok(bodies().every((b) => !b.includes('ZQQUEUE-B')), 'the removed prompt never reached the model');
  });

  test('Stop pauses the queue; Resume queue runs the waiting prompt', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.pause);
    const first = view(page).locator('section.turn').first();
    await first.locator('.card.tool.running').waitFor();
    await ask(page, 'ZQPAUSE-next');
    await view(page).locator('#queue .queued', { hasText: 'ZQPAUSE-next' }).waitFor();
    await view(page).locator('#stop').click();
    await first.locator('.turn-end.interrupted').waitFor();
    const resume = view(page).locator('#queue button[data-action="resumeQueue"]');
    await resume.waitFor();
    assert.match(await view(page).locator('#queue .queue-head').innerText(), /waits/);
    await vs.screenshot('queue-paused');
    await resume.click();
    const next = lastTurn(page);
    await next.locator('.message', { hasText: 'The resumed prompt ran.' }).waitFor();
    assert.match(await next.locator('.prompt').first().innerText(), /^ZQPAUSE-next$/);
    await view(page).locator('#queue .queued').first().waitFor({ state: 'detached' });
  });

  test('a turn that ends out of sight says so in a notification whose Show brings the view back', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.notify);
    await lastTurn(page).locator('.card.tool.running').waitFor();
    await command(page, 'View: Toggle Panel Visibility');
    await view(page).locator('#prompt').waitFor({ state: 'detached' });
    touch('notify-go');
    const show = await notificationButton(page, 'Agent: the turn is done.', 'Show');
    await vs.screenshot('notify-done');
    await show.click();
    await lastTurn(page).locator('.message', { hasText: 'The tests passed while you looked away.' }).waitFor();
  });

  test('a question of the model shows as a card; a click on an option answers it', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.question);
    const card = view(page).locator('#approvals .card.ask');
    await card.waitFor();
    assert.match(await card.innerText(), new RegExp(questions[0].question));
    assert.deepEqual(await card.locator('button.option').allInnerTexts(), ['Postgres', 'SQLite']);
    await card.locator('input.question-other').waitFor();
    await statusShows(page, /Agent: asks you/);
    await vs.screenshot('question-open');
    await card.locator('button.option', { hasText: 'SQLite' }).click();
    await card.waitFor({ state: 'detached' });
    await lastTurn(page).locator('.message', { hasText: 'SQLite it is.' }).waitFor();
    assert.match(bodies('question-answer')[0], /SQLite/);
  });

  test('several questions: an option for one, Other for the next, then Send answers', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.other);
    const card = view(page).locator('#approvals .card.ask');
    await card.waitFor();
    assert.equal(await card.locator('.question').count(), 2);
    await card.locator('.question[data-id="lang"] button.option', { hasText: 'Go' }).click();
    await card.locator('.question[data-id="lang"] button.option.chosen', { hasText: 'Go' }).waitFor();
    const other = card.locator('.question[data-id="port"] input.question-other');
    await other.fill('8443');
    await card.locator('.question[data-id="port"] button[data-action="questionOther"]').click();
    await card.locator('.question[data-id="port"] input.question-other[value="8443"]').waitFor();
    await vs.screenshot('questions-two');
    await card.locator('button[data-action="questionSubmit"]').click();
    await card.waitFor({ state: 'detached' });
    await lastTurn(page).locator('.message', { hasText: 'Go on port 8443.' }).waitFor();
    const told = bodies('other-answer')[0];
    assert.match(told, /\\"lang\\":\{\\"answers\\":\[\\"Go\\"\]/);
    assert.match(told, /user_note: 8443/);
  });

  test('Stop withdraws an open question: its card goes', async () => {
    const { page } = vs;
    await newTurn(page, workPrompts.withdraw);
    const card = view(page).locator('#approvals .card.ask');
    await card.waitFor();
    await view(page).locator('#stop').click();
    await lastTurn(page).locator('.turn-end.interrupted').waitFor();
    await card.waitFor({ state: 'detached' });
  });

  test('plan mode: the plan comes with Approve, which carries it out in default mode', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await view(page).locator('#empty').waitFor();
    await view(page).locator('#mode').selectOption('plan');
    await ask(page, workPrompts.plan);
    const turn = view(page).locator('section.turn').first();
    await turn.locator('.message', { hasText: 'That is the plan' }).waitFor();
    assert.deepEqual(await turn.locator('.plan .step').allInnerTexts(), ['☐ Rename add to sum', '☐ Update the callers']);
    const approve = turn.locator('button[data-action="approvePlan"]');
    await approve.waitFor();
    await vs.screenshot('plan-ready');
    await approve.click();
    await lastTurn(page).locator('.message', { hasText: 'Carrying out the plan now.' }).waitFor();
    assert.equal(await view(page).locator('#mode').inputValue(), 'default');
    await view(page).locator('button[data-action="approvePlan"]').waitFor({ state: 'detached' });
    assert.match(bodies('plan-propose')[0], /read-only/, 'plan mode ran read-only');
    assert.match(bodies('plan-carry-out')[0], /Plan approved/);
    assert.match(await view(page).locator('section.turn').first().locator('.prompt .tag').innerText(), /plan/);
  });

  test('Restore checkpoint on a turn takes its patch back in the open editor and on disk, in one undo step', async () => {
    const { page } = vs;
    const onDisk = path.join(vs.dirs.workspace, 'math.js');
    const mathBefore = files['math.js'];
    await command(page, 'View: Close All Editors');
    await openFile(page, 'math.js');
    await newTurn(page, workPrompts.rewind);
    const turn = lastTurn(page);
    await turn.locator('.message', { hasText: 'add is explicit now.' }).waitFor();
    await waitFor('math.js to be patched and saved', async () => fs.readFileSync(onDisk, 'utf8') === mathAfter);
    await turn.locator('button[data-action="rewind"]').click();
    await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Restore checkpoint' }).first().click();
    await page.locator('.notifications-toasts', { hasText: '1 file(s) restored' }).waitFor();
    await waitFor('math.js to be restored on disk', async () => fs.readFileSync(onDisk, 'utf8') === mathBefore);
    await waitFor('the editor to show it restored', async () => (await editorText(page)).trim() === mathBefore.trim());
    await lastTurn(page).locator('button[data-action="rewind"]').waitFor({ state: 'detached' });
    await vs.screenshot('rewound');
    // One undo in the editor brings the agent's change back whole.
    await page.locator('.editor-instance:visible .view-line', { hasText: 'function add' }).click();
    await page.keyboard.press('Control+z');
    await waitFor('one undo to bring the patch back', async () => (await editorText(page)).trim() === mathAfter.trim());
  });

  test('Edit prompt on a turn takes it back and sends the edited prompt in its place', async () => {
    const { page } = vs;
    const onDisk = path.join(vs.dirs.workspace, 'notes.txt');
    const notesBefore = files['notes.txt'];
    await command(page, 'View: Close All Editors');
    await newTurn(page, workPrompts.editOne);
    const first = lastTurn(page);
    await first.locator('.message', { hasText: 'Said goodbye properly.' }).waitFor();
    await waitFor('notes.txt to be patched', async () => fs.readFileSync(onDisk, 'utf8').includes('goodbye for now'));
    const box = view(page).locator('#prompt');
    await box.fill('a draft of my own');
    await first.locator('button[data-action="editPrompt"]').click();
    await view(page).locator('#editing').waitFor();
    assert.equal(await box.inputValue(), workPrompts.editOne, 'the input box holds the prompt to edit');
    // Escape gives the draft back; Edit prompt again, then send the edit.
    await box.press('Escape');
    assert.equal(await box.inputValue(), 'a draft of my own');
    await view(page).locator('#editing').waitFor({ state: 'hidden' });
    await first.locator('button[data-action="editPrompt"]').click();
    await box.fill(workPrompts.editTwo);
    await box.press('Enter');
    await page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Rewind and send' }).first().click();
    const second = lastTurn(page);
    await second.locator('.message', { hasText: 'Left the notes alone.' }).waitFor();
    assert.match(await second.locator('.prompt').innerText(), /ZQEDITTWO/);
    await waitFor('notes.txt to be restored on disk', async () => fs.readFileSync(onDisk, 'utf8') === notesBefore);
    const turns = view(page).locator('section.turn');
    assert.equal(await turns.count(), 2, 'the edited turn stays, marked rewound, above the new one');
    assert.match(await turns.first().locator('.prompt .tag').innerText(), /rewound/);
    const sent = bodies('edit-answer-two');
    assert.equal(sent.length, 1);
    assert.doesNotMatch(sent[0], /ZQEDITONE/, 'the model no longer sees the edited turn');
    assert.equal(await box.inputValue(), '', 'the input box is empty once the edit is sent');
    await vs.screenshot('prompt-edited');
  });
});
