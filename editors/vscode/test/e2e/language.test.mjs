// The extension in a real VS Code (code-server), driven with Playwright:
// the model asks VS Code's built-in TypeScript features through
// agent/languageQuery for the diagnostics of an unsaved edit, a
// definition in another file and the references, and renames across two
// files, which Agent: Undo Last Turn takes back.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test as nodeTest } from 'node:test';
import { launch, waitFor } from './harness.mjs';
import { ask, command, lastTurn, openFile, view } from './ui.mjs';

const apiKey = 'sk-vscode-test-lang-7a1e';
let vs;

const greetTs = "export function greet(name: string): string {\n  return 'Hello, ' + name;\n}\n";
const mainTs = "import { greet } from './greet';\n\nconsole.log(greet('a') + greet('b'));\n";

const files = {
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs' } }, null, 2) + '\n',
  'greet.ts': greetTs,
  'main.ts': mainTs,
};

const call = (callId, name, args) => ({ type: 'function_call', callId, name, arguments: args });

const script = {
  steps: [
    { name: 'diag', bodyContains: 'ZQLDIAG', reply: { items: [call('g1', 'lsp_diagnostics', { path: 'main.ts' })] } },
    { name: 'diag-answer', bodyContains: 'ZQLDIAG', reply: { items: [{ type: 'message', text: 'main.ts does not compile.' }] } },
    {
      name: 'find',
      bodyContains: 'ZQLFIND',
      reply: { items: [call('d1', 'lsp_definition', { path: 'main.ts', line: 3, symbol: 'greet' }), call('r1', 'lsp_references', { path: 'greet.ts', line: 1, column: 17 })] },
    },
    { name: 'rename', bodyContains: 'ZQLFIND', reply: { items: [call('n1', 'lsp_rename', { path: 'greet.ts', line: 1, column: 17, new_name: 'welcome' })] } },
    { name: 'find-answer', bodyContains: 'ZQLFIND', reply: { items: [{ type: 'message', text: 'Renamed greet to welcome.' }] } },
  ],
};

/** The output the model read of call callId, in the request of step. */
function output(step, callId) {
  const req = vs.requests().find((r) => r.step === step);
  const item = req?.body.input.find((it) => it.type === 'function_call_output' && it.call_id === callId);
  return item?.output ?? '';
}

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

describe('agent-ls in VS Code asks its language features', () => {
  before(async () => {
    vs = await launch({
      name: 'language',
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
        'git.openRepositoryInParentFolders': 'never',
        'files.autoSave': 'off', // VS Code's default; code-server's differs
        'editor.autoClosingQuotes': 'never',
        'editor.autoClosingBrackets': 'never',
        'agentLs.approvalPolicy': 'on-request',
      },
      // tsserver may take a while to start in a fresh code-server.
      homeFiles: { '.config/agent-ls/config.toml': 'language_query_timeout_ms = 60000\n' },
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

  test('the diagnostics of an unsaved edit come from TypeScript', async () => {
    const { page } = vs;
    await openFile(page, 'main.ts');
    await page.locator('.editor-instance:visible .view-line', { hasText: "console.log(greet('a')" }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type("const n: number = 'x';", { delay: 20 });
    await page.locator('.tabs-container .tab.active.dirty', { hasText: 'main.ts' }).waitFor();
    // TypeScript is up once it marks the edit.
    await page.locator('.editor-instance:visible .squiggly-error').first().waitFor();
    await command(page, 'Agent: New Session');
    await view(page).locator('#empty').waitFor();
    await ask(page, 'ZQLDIAG does main.ts compile?');
    await lastTurn(page).locator('.message', { hasText: 'main.ts does not compile.' }).waitFor();
    assert.match(output('diag-answer', 'g1'), /^main\.ts:4:7: error: Type 'string' is not assignable to type 'number'\. \(ts 2322\)/);
    await vs.screenshot('diagnostics');
    // The unsaved edit stays unsaved; drop it with its editor.
    assert.equal(fs.readFileSync(path.join(vs.dirs.workspace, 'main.ts'), 'utf8'), mainTs);
    await command(page, 'View: Revert and Close Editor');
    await page.locator('.tabs-container .tab', { hasText: 'main.ts' }).waitFor({ state: 'detached' });
  });

  test('a definition in another file, its references, and a rename across both files', async () => {
    const { page } = vs;
    await ask(page, 'ZQLFIND where is greet, and rename it');
    await lastTurn(page).locator('.message', { hasText: 'Renamed greet to welcome.' }).waitFor();
    assert.equal(output('rename', 'd1'), "greet.ts:1:17: export function greet(name: string): string {");
    const refs = output('rename', 'r1');
    for (const want of ['4 references:', 'greet.ts:1:17:', 'main.ts:1:10:', "main.ts:3:13: console.log(greet('a') + greet('b'));", 'main.ts:3:26:']) {
      assert.ok(refs.includes(want), `references lack ${want}:\n${refs}`);
    }
    assert.match(output('find-answer', 'n1'), /^Renamed to welcome in 2 files:/);
    await waitFor('the rename on disk', async () =>
      fs.readFileSync(path.join(vs.dirs.workspace, 'greet.ts'), 'utf8').includes('function welcome(') &&
      fs.readFileSync(path.join(vs.dirs.workspace, 'main.ts'), 'utf8').includes("welcome('a') + welcome('b')"),
    );
    await vs.screenshot('renamed');
  });

  test('Agent: Undo Last Turn takes the rename back', async () => {
    const { page } = vs;
    await command(page, 'Agent: Undo Last Turn');
    await waitFor('the files to be restored', async () =>
      fs.readFileSync(path.join(vs.dirs.workspace, 'greet.ts'), 'utf8') === greetTs &&
      fs.readFileSync(path.join(vs.dirs.workspace, 'main.ts'), 'utf8') === mainTs,
    );
    await vs.screenshot('undone');
  });
});
