// The script of the conversation view (runs in the webview): shows the
export {};
// HTML the extension renders, keeps the user's scroll position and open
// details, and posts the user's actions.

import { mentionBox } from './mentions';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

interface RenderMessage {
  type: 'render';
  sessionId: string;
  sessions: string[];
  turns: { id: string; html: string }[];
  usage: string;
  working: boolean;
  approvals: string;
  queue: string;
  mode: string;
}

const vscode = acquireVsCodeApi();
const turnsEl = document.getElementById('turns')!;
const emptyEl = document.getElementById('empty')!;
const prompt = document.getElementById('prompt') as HTMLTextAreaElement;
const send = document.getElementById('send') as HTMLButtonElement;
const stop = document.getElementById('stop') as HTMLButtonElement;
const session = document.getElementById('session') as HTMLSelectElement;
const usage = document.getElementById('usage')!;
const approvals = document.getElementById('approvals')!;
const steer = document.getElementById('steer') as HTMLButtonElement;
const queue = document.getElementById('queue')!;
const mode = document.getElementById('mode') as HTMLSelectElement;
const shown = new Map<string, string>(); // turn id -> html shown
let shownApprovals = '';
let shownQueue = '';
let working = false;
/** The queued prompt being edited: its turn id and the text typed so far. */
let editing: { turnId: string; text: string } | undefined;
/** The finished turn whose prompt the input box holds (Edit prompt). */
let editingTurn: string | undefined;
const editingEl = document.getElementById('editing')!;

// @ completes files, folders and @diagnostics; registered first, so
// its keys (Enter, Tab) win while its list shows.
const mentions = mentionBox(prompt, document.getElementById('mentions')!, (m) => vscode.postMessage(m));

// Images pasted or dropped into the prompt box wait, shown as chips,
// until the next prompt is sent (a steer leaves them for it).
const attachmentsEl = document.getElementById('attachments')!;
const attached: { name: string; dataUrl: string }[] = [];
const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function showAttachments(): void {
  attachmentsEl.hidden = attached.length === 0;
  attachmentsEl.replaceChildren(
    ...attached.map((img, i) => {
      const chip = document.createElement('span');
      chip.className = 'attachment';
      const thumb = document.createElement('img');
      thumb.src = img.dataUrl;
      thumb.alt = img.name;
      const remove = document.createElement('button');
      remove.textContent = '×';
      remove.title = `Remove ${img.name}`;
      remove.addEventListener('click', () => {
        attached.splice(i, 1);
        showAttachments();
      });
      chip.append(thumb, document.createTextNode(img.name), remove);
      return chip;
    }),
  );
}

/** Attaches the image files among files; returns whether there was one. */
function attach(files: Iterable<File>): boolean {
  let any = false;
  for (const f of files) {
    if (!imageTypes.includes(f.type)) continue;
    any = true;
    const r = new FileReader();
    r.onload = () => {
      attached.push({ name: f.name || 'pasted image', dataUrl: String(r.result) });
      showAttachments();
    };
    r.readAsDataURL(f);
  }
  return any;
}

prompt.addEventListener('paste', (e) => {
  const files = [...(e.clipboardData?.items ?? [])].filter((i) => i.kind === 'file').map((i) => i.getAsFile()).filter((f): f is File => !!f);
  if (attach(files)) e.preventDefault();
});
prompt.addEventListener('dragover', (e) => {
  if ([...(e.dataTransfer?.items ?? [])].some((i) => i.kind === 'file')) e.preventDefault();
});
prompt.addEventListener('drop', (e) => {
  if (attach(e.dataTransfer?.files ?? [])) e.preventDefault();
});

// Enter sends (while a turn runs: queues); Ctrl+Enter, or Steer, sends
// into the running turn.
function submit(type: 'ask' | 'steer'): void {
  const text = prompt.value.trim();
  if (!text) return;
  if (editingTurn !== undefined) {
    // An edited prompt: the extension asks, rewinds and sends it.
    vscode.postMessage({ type: 'editPrompt', turnId: editingTurn, text });
    endPromptEdit('');
    return;
  }
  const chosen = mentions.take();
  const images = type === 'ask' && attached.length > 0 ? attached.splice(0) : undefined;
  vscode.postMessage(type === 'ask' ? { type, text, mentions: chosen, images } : { type, text });
  if (images) showAttachments();
  prompt.value = '';
}

prompt.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit((e.ctrlKey || e.metaKey) && working && editingTurn === undefined ? 'steer' : 'ask');
  } else if (e.key === 'Escape' && editingTurn !== undefined) {
    endPromptEdit(editingDraft);
  }
});

/** What the input box held when Edit prompt replaced it. */
let editingDraft = '';

/** Edit prompt: the input box takes the turn's prompt until it is sent or the edit is cancelled. */
function startPromptEdit(turnId: string, text: string): void {
  if (editingTurn === undefined) editingDraft = prompt.value;
  editingTurn = turnId;
  editingEl.hidden = false;
  prompt.value = text;
  prompt.focus();
  prompt.setSelectionRange(text.length, text.length);
}

/** Ends an edit; the input box gets value (the draft it held before, or nothing once sent). */
function endPromptEdit(value: string): void {
  editingTurn = undefined;
  editingEl.hidden = true;
  prompt.value = value;
  editingDraft = '';
}
document.getElementById('cancelEdit')!.addEventListener('click', () => endPromptEdit(editingDraft));
send.addEventListener('click', () => submit('ask'));
steer.addEventListener('click', () => submit('steer'));
mode.addEventListener('change', () => vscode.postMessage({ type: 'setMode', mode: mode.value }));
turnsEl.addEventListener('click', (e) => {
  if ((e.target as HTMLElement).closest('button[data-action="approvePlan"]')) vscode.postMessage({ type: 'approvePlan' });
  const rewind = (e.target as HTMLElement).closest('button[data-action="rewind"]') as HTMLButtonElement | null;
  if (rewind) vscode.postMessage({ type: 'rewind', turnId: rewind.dataset.turn ?? '' });
  const edit = (e.target as HTMLElement).closest('button[data-action="editPrompt"]') as HTMLButtonElement | null;
  if (edit) startPromptEdit(edit.dataset.turn ?? '', decodeURIComponent(edit.dataset.prompt ?? ''));
});

// The queue: Edit turns a prompt into a box (Enter or Save keeps it,
// Escape or Cancel leaves it as it was), Remove, Send now, Resume.
queue.addEventListener('click', (e) => {
  const b = (e.target as HTMLElement).closest('button[data-action]') as HTMLButtonElement | null;
  if (!b) return;
  const turnId = b.dataset.turn ?? '';
  switch (b.dataset.action) {
    case 'editQueued': {
      const row = b.closest('.queued');
      editing = { turnId, text: row?.querySelector('.queued-text')?.textContent ?? '' };
      showEditor();
      break;
    }
    case 'saveQueued':
      saveEdit();
      break;
    case 'cancelQueued':
      editing = undefined;
      renderQueue(shownQueue, true);
      break;
    case 'removeQueued':
    case 'sendNow':
      vscode.postMessage({ type: b.dataset.action, turnId });
      break;
    case 'resumeQueue':
      vscode.postMessage({ type: 'resumeQueue' });
      break;
  }
});
queue.addEventListener('input', (e) => {
  const t = e.target as HTMLElement;
  if (editing && t instanceof HTMLTextAreaElement) editing.text = t.value;
});
queue.addEventListener('keydown', (e) => {
  if (!(e.target instanceof HTMLTextAreaElement)) return;
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    saveEdit();
  } else if (e.key === 'Escape') {
    editing = undefined;
    renderQueue(shownQueue, true);
  }
});

function saveEdit(): void {
  if (!editing) return;
  const text = editing.text.trim();
  if (text) vscode.postMessage({ type: 'updateQueued', turnId: editing.turnId, prompt: text });
  editing = undefined;
  renderQueue(shownQueue, true);
}

/** Puts the edit box in place of the prompt being edited (gone: the edit ends). */
function showEditor(): void {
  if (!editing) return;
  const row = [...queue.querySelectorAll<HTMLElement>('.queued')].find((r) => r.dataset.turn === editing!.turnId);
  if (!row) {
    editing = undefined;
    return;
  }
  const box = document.createElement('textarea');
  box.className = 'queued-edit';
  box.rows = 2;
  box.value = editing.text;
  const actions = document.createElement('span');
  actions.className = 'queued-actions';
  for (const [label, action] of [['Save', 'saveQueued'], ['Cancel', 'cancelQueued']]) {
    const b = document.createElement('button');
    b.className = 'link';
    b.textContent = label;
    b.dataset.action = action;
    b.dataset.turn = editing.turnId;
    actions.append(b, ' ');
  }
  row.querySelector('.queued-text')?.replaceWith(box);
  row.querySelector('.queued-actions')?.replaceWith(actions);
  box.focus();
}

function renderQueue(html: string, force = false): void {
  if (!force && html === shownQueue) return;
  queue.innerHTML = html;
  shownQueue = html;
  showEditor();
}
stop.addEventListener('click', () => vscode.postMessage({ type: 'stop' }));
session.addEventListener('change', () => {
  if (session.value === '') vscode.postMessage({ type: 'newSession' });
  else vscode.postMessage({ type: 'selectSession', sessionId: session.value });
});
turnsEl.addEventListener('click', (e) => {
  const b = (e.target as HTMLElement).closest('button[data-action="diff"]') as HTMLButtonElement | null;
  if (b) vscode.postMessage({ type: 'openDiff', turnId: b.dataset.turn, callId: b.dataset.call, index: Number(b.dataset.index) });
});
approvals.addEventListener('click', (e) => {
  const q = (e.target as HTMLElement).closest('button[data-action^="question"]') as HTMLButtonElement | null;
  if (q) {
    const key = q.dataset.key;
    if (q.dataset.action === 'questionSubmit') vscode.postMessage({ type: 'question', key, submit: true });
    else if (q.dataset.action === 'questionOther') {
      const box = [...approvals.querySelectorAll<HTMLInputElement>('input.question-other')].find((i) => i.dataset.key === key && i.dataset.id === q.dataset.id);
      if (box?.value.trim()) vscode.postMessage({ type: 'question', key, id: q.dataset.id, text: box.value });
    } else vscode.postMessage({ type: 'question', key, id: q.dataset.id, index: Number(q.dataset.index) });
  }
  const b = (e.target as HTMLElement).closest('button[data-action="approval"]') as HTMLButtonElement | null;
  if (b) vscode.postMessage({ type: 'approval', key: b.dataset.key, index: Number(b.dataset.index) });
  const r = (e.target as HTMLElement).closest('button[data-action="review"]') as HTMLButtonElement | null;
  if (r)
    vscode.postMessage({
      type: 'review',
      key: r.dataset.key,
      action: r.dataset.reviewAction,
      file: r.dataset.file === undefined ? undefined : Number(r.dataset.file),
      hunk: r.dataset.hunk === undefined ? undefined : Number(r.dataset.hunk),
    });
});
// Enter in a question's Other box answers with the text.
approvals.addEventListener('keydown', (e) => {
  const t = e.target as HTMLElement;
  if (t instanceof HTMLInputElement && t.classList.contains('question-other') && e.key === 'Enter' && t.value.trim()) {
    e.preventDefault();
    vscode.postMessage({ type: 'question', key: t.dataset.key, id: t.dataset.id, text: t.value });
  }
});
// A review's comment goes to the extension as it is typed, so that a
// button (or a CodeLens in the diff editor) sends it along.
approvals.addEventListener('input', (e) => {
  const t = e.target as HTMLElement;
  if (t instanceof HTMLTextAreaElement && t.classList.contains('review-comment')) {
    vscode.postMessage({ type: 'reviewComment', key: t.dataset.key, text: t.value });
  }
});

function renderSessions(m: RenderMessage): void {
  session.textContent = '';
  m.sessions.forEach((id, i) => {
    const o = document.createElement('option');
    o.value = id;
    o.textContent = `Session ${i + 1}`;
    session.appendChild(o);
  });
  if (!m.sessionId) {
    const o = document.createElement('option');
    o.value = '-';
    o.textContent = 'No session yet';
    session.appendChild(o);
  }
  const n = document.createElement('option');
  n.value = '';
  n.textContent = 'New session';
  session.appendChild(n);
  session.value = m.sessionId || '-';
}

function render(m: RenderMessage): void {
  const atBottom = turnsEl.scrollHeight - turnsEl.scrollTop - turnsEl.clientHeight < 40;
  const ids = new Set(m.turns.map((t) => t.id));
  for (const el of [...turnsEl.querySelectorAll<HTMLElement>('section.turn')]) {
    if (!ids.has(el.dataset.turn ?? '')) {
      el.remove();
      shown.delete(el.dataset.turn ?? '');
    }
  }
  for (const t of m.turns) {
    if (shown.get(t.id) === t.html) continue;
    const open = new Set<number>();
    let el = turnsEl.querySelector<HTMLElement>(`section.turn[data-turn="${CSS.escape(t.id)}"]`);
    el?.querySelectorAll('details').forEach((d, i) => d.open && open.add(i));
    const tmp = document.createElement('div');
    tmp.innerHTML = t.html;
    const fresh = tmp.firstElementChild as HTMLElement;
    fresh.querySelectorAll('details').forEach((d, i) => (d.open = open.has(i)));
    if (el) el.replaceWith(fresh);
    else turnsEl.appendChild(fresh);
    el = fresh;
    shown.set(t.id, t.html);
  }
  if (editingTurn !== undefined && !ids.has(editingTurn)) {
    // The turn being edited is gone (another session): the text stays.
    editingTurn = undefined;
    editingEl.hidden = true;
  }
  emptyEl.hidden = m.turns.length > 0;
  usage.textContent = m.usage;
  stop.hidden = !m.working;
  steer.hidden = !m.working;
  working = m.working;
  prompt.placeholder = m.working ? 'Queue a prompt (Enter), or steer the running turn (Ctrl+Enter)…' : 'Ask the agent…';
  send.textContent = m.working ? 'Queue' : 'Send';
  document.body.classList.toggle('working', m.working);
  mode.value = m.mode;
  document.body.classList.toggle('plan-mode', m.mode === 'plan');
  renderQueue(m.queue);
  if (shownApprovals !== m.approvals) {
    // What the user is typing in a review's comment box or a question's
    // Other box stays.
    const active = document.activeElement;
    const typing = (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) && approvals.contains(active) ? active : undefined;
    const boxes = () => [...approvals.querySelectorAll<HTMLTextAreaElement | HTMLInputElement>('textarea.review-comment, input.question-other')];
    const id = (t: HTMLElement) => `${t.dataset.key}|${t.dataset.id ?? ''}`;
    const kept = new Map(boxes().map((t) => [id(t), t.value]));
    approvals.innerHTML = m.approvals;
    shownApprovals = m.approvals;
    for (const t of boxes()) {
      const v = kept.get(id(t));
      if (v !== undefined) t.value = v;
      if (typing && id(typing) === id(t)) t.focus();
    }
  }
  document.body.classList.toggle('needs-approval', m.approvals !== '');
  renderSessions(m);
  if (atBottom) turnsEl.scrollTop = turnsEl.scrollHeight;
}

window.addEventListener('message', (e: MessageEvent) => {
  if (e.data?.type === 'render') render(e.data as RenderMessage);
});
vscode.postMessage({ type: 'ready' });
