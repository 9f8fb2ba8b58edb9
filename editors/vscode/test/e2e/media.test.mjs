// The extension in a real VS Code (code-server), driven with Playwright:
// an image put on the clipboard from a file is pasted into the view's
// prompt box and reaches the model as an input image; a file chosen from
// the @ completion goes with the prompt as context and shows as a chip;
// after the turn the status bar shows the tokens used, the context taken
// and the rate limits the provider reported in its x-ratelimit-* headers.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test as nodeTest } from 'node:test';
import { launch, waitFor } from './harness.mjs';
import { command, lastTurn, openFile, statusShows, view } from './ui.mjs';

const apiKey = 'sk-vscode-test-media-3c9d';
let vs;

// A 7x5 PNG. The clipboard keeps images decoded: what the view reads
// back is the same picture, encoded anew.
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAcAAAAFCAIAAAAG+GGPAAAATklEQVR4nA3IMQEAQQgEsVWCCGqUUCPiylGxShCBrP+UkUSIEi2esFghJZFU0slLnGz+O8RQQw9v8LDzrwlTps0zNut/jzjq6OMdPvb4APTbK3uucfspAAAAAElFTkSuQmCC',
  'base64',
);

/** The width and height in a PNG's header. */
function pngSize(b) {
  assert.equal(b.subarray(0, 8).toString('latin1'), '\x89PNG\r\n\x1a\n', 'not a PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

const files = {
  'notes/plan-zq7.md': 'The plan: ZQPLANTEXT ships first.\n',
  'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'es2020', module: 'commonjs' } }) + '\n',
  'greet.ts': "// A line above the symbol.\nexport function zqGreeting(name: string): string {\n  return 'ZQSYMBODY ' + name;\n}\n",
};

const script = {
  steps: [
    {
      name: 'image',
      bodyContains: 'ZQIMAGE',
      reply: {
        items: [{ type: 'message', text: 'I see a tiny picture.' }],
        usage: { inputTokens: 5200, cachedInputTokens: 0, outputTokens: 300, reasoningTokens: 0 },
        header: {
          'x-ratelimit-remaining-requests': '42',
          'x-ratelimit-remaining-tokens': '15000',
          'x-ratelimit-reset-requests': '1s',
          'x-ratelimit-reset-tokens': '6m0s',
        },
      },
    },
    { name: 'symbol', bodyContains: 'ZQSYMBOL', reply: { items: [{ type: 'message', text: 'That function greets.' }] } },
  ],
};

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

describe('images, mentions and usage in VS Code', () => {
  before(async () => {
    vs = await launch({
      name: 'media',
      script,
      files,
      // tsserver may take a while to start in a fresh code-server.
      homeFiles: { '.config/agent-ls/config.toml': 'language_query_timeout_ms = 60000\n' },
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
    // The image the user copies (files holds text only).
    fs.writeFileSync(path.join(vs.dirs.workspace, 'shot.png'), png);
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

  test('an image pasted from the clipboard and an @-mentioned file reach the model; the status bar shows tokens, context and rate limits', async () => {
    const { page } = vs;
    await command(page, 'Agent: New Session');
    await view(page).locator('#empty').waitFor();
    // The clipboard holds the file's bytes as an image, as a screenshot
    // tool or an image viewer's Copy leaves it.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    const bytes = fs.readFileSync(path.join(vs.dirs.workspace, 'shot.png')).toString('base64');
    await page.bringToFront();
    await page.evaluate(async (b64) => {
      const raw = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      await navigator.clipboard.write([new ClipboardItem({ 'image/png': new Blob([raw], { type: 'image/png' }) })]);
    }, bytes);
    const box = view(page).locator('#prompt');
    await box.click();
    await box.press('Control+V');
    await view(page).locator('#attachments .attachment img').waitFor();

    // @ completes the file; Enter takes it.
    await box.pressSequentially('ZQIMAGE what is in the picture? See @plan-zq', { delay: 20 });
    const item = view(page).locator('#mentions li.mention-file', { hasText: '@notes/plan-zq7.md' });
    await item.waitFor();
    await box.press('Enter');
    assert.match(await box.inputValue(), /See @notes\/plan-zq7\.md $/);
    await box.press('Enter');
    await lastTurn(page).locator('.message', { hasText: 'I see a tiny picture.' }).waitFor();
    await lastTurn(page).locator('.mention-chip', { hasText: '@notes/plan-zq7.md' }).waitFor();
    await view(page).locator('#attachments .attachment').waitFor({ state: 'detached' });

    const req = vs.requests().find((r) => r.step === 'image');
    assert.ok(req, 'the model got no request');
    const images = req.body.input.flatMap((it) => (Array.isArray(it.content) ? it.content : [])).filter((c) => c.type === 'input_image');
    assert.equal(images.length, 1, 'the request holds no input_image, or more than one');
    const m = /^data:image\/png;base64,(.+)$/.exec(images[0].image_url);
    assert.ok(m, `the image is not a PNG data URL: ${images[0].image_url.slice(0, 40)}`);
    assert.deepEqual(pngSize(Buffer.from(m[1], 'base64')), [7, 5]);
    assert.ok(JSON.stringify(req.body).includes('ZQPLANTEXT'), "the request lacks the mentioned file's text");

    const status = await statusShows(page, /Agent · 5\.5k tokens · \d+% of context · 42 req, 15k tok left/);
    assert.match(status, /Agent · 5\.5k tokens/);
    await vs.screenshot('image-mention-usage');
  });

  test('@# completes a symbol from the editor\'s workspace symbols; its file and range go with the prompt', async () => {
    const { page } = vs;
    // TypeScript answers workspace symbols once it has a project open.
    await openFile(page, 'greet.ts');
    const box = view(page).locator('#prompt');
    const item = view(page).locator('#mentions li.mention-symbol', { hasText: '@#zqGreeting' });
    await box.click();
    await box.fill('ZQSYMBOL what does ');
    // Typed again until TypeScript is up and answers.
    await waitFor('the symbol in the @ completion', async () => {
      await box.press('End');
      await box.pressSequentially('@#zqGree', { delay: 20 });
      if (await item.waitFor({ timeout: 3000 }).then(() => true, () => false)) return true;
      for (let i = 0; i < '@#zqGree'.length; i++) await box.press('Backspace');
      return false;
    });
    assert.match(await item.innerText(), /greet\.ts/);
    await box.press('Enter');
    assert.equal(await box.inputValue(), 'ZQSYMBOL what does @#zqGreeting ');
    await box.pressSequentially('do?', { delay: 20 });
    await box.press('Enter');
    await lastTurn(page).locator('.message', { hasText: 'That function greets.' }).waitFor();
    await lastTurn(page).locator('.mention-chip', { hasText: '@#zqGreeting' }).waitFor();
    const body = JSON.stringify(vs.requests().find((r) => r.step === 'symbol')?.body ?? {});
    assert.ok(body.includes('ZQSYMBODY'), "the request lacks the symbol's lines");
    assert.ok(body.includes('greet.ts'), "the request lacks the symbol's file");
    await vs.screenshot('symbol-mention');
  });
});
