// Moves in VS Code's web workbench that the scenarios share: the command
// palette, the conversation view's webview, notifications, the editor.
import { patience } from './harness.mjs';

/** Runs a command from the palette by its full title. */
export async function command(page, title) {
  const input = page.locator('.quick-input-widget input');
  // Escape closes an open palette; in an editor it would drop the selection.
  if (await input.isVisible()) await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  // F1 goes nowhere when the focus was left nowhere (after a modal
  // dialog): the title bar's command center opens the same quick input.
  if (!(await input.waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false))) {
    await page.locator('.command-center .action-item').first().click();
  }
  await input.waitFor({ state: 'visible' });
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  // Right after start-up the palette may not list the extension's
  // commands yet: type the title again until it does.
  const deadline = Date.now() + patience;
  for (;;) {
    await input.fill(`>${title}`);
    try {
      await row.waitFor({ timeout: 5000 });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await input.fill('>');
    }
  }
  await row.click();
}

/** The conversation view's document (a webview: two iframes deep). */
export function view(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/** Types a prompt into the view and sends it with Enter. */
export async function ask(page, text) {
  const box = view(page).locator('#prompt');
  await box.click();
  await box.fill(text);
  await box.press('Enter');
}

/** The last turn of the conversation in the view. */
export function lastTurn(page) {
  return view(page).locator('section.turn').last();
}

/** Clicks a button of the notification whose text contains message. */
export async function notificationButton(page, message, button) {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: message }).first();
  await toast.waitFor();
  return toast.locator('.monaco-button', { hasText: button }).first();
}

/** Opens a workspace file from the Explorer. */
export async function openFile(page, name) {
  await page.keyboard.press('Escape');
  await command(page, 'View: Show Explorer');
  await page.locator(`.explorer-folders-view .monaco-list-row:has-text("${name}")`).first().click();
  await page.locator(`.tabs-container .tab.active:has-text("${name}")`).waitFor();
  // The tab shows before the editor has drawn the file's lines (even an
  // empty file has one).
  await page.locator('.editor-instance:visible .view-lines .view-line').first().waitFor();
}

/** The text of the active editor, as shown. */
export async function editorText(page) {
  const lines = await page.locator('.editor-instance:visible .view-lines .view-line').evaluateAll((els) =>
    els
      .map((e) => ({ top: parseFloat(e.style.top), text: e.textContent.replace(/\u00a0/g, ' ') }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text),
  );
  return lines.join('\n');
}

/** Waits until the status bar item's text matches re, and returns it. */
export async function statusShows(page, re) {
  const item = page.locator('.statusbar-item', { hasText: re }).first();
  await item.waitFor({ timeout: patience });
  return item.innerText();
}

/** Ticks or unticks a boolean user setting in the Settings editor. */
export async function setBooleanSetting(page, key, value) {
  await command(page, 'Preferences: Open User Settings');
  const editor = page.locator('.settings-editor');
  await editor.waitFor();
  await editor.locator('.settings-header .suggest-input-container').click();
  await page.keyboard.type(key);
  // A machine-scoped setting lives on the machine agent-ls runs on: in
  // code-server, the Remote tab.
  const remote = editor.locator('.settings-tabs-widget .action-label', { hasText: 'Remote' });
  if (await remote.count()) await remote.first().click();
  const box = editor.locator('.setting-item-bool .setting-value-checkbox').first();
  await box.waitFor();
  if ((await box.getAttribute('aria-checked')) !== String(value)) await box.click();
  await editor.locator(`.setting-item-bool .setting-value-checkbox[aria-checked="${value}"]`).first().waitFor();
}
