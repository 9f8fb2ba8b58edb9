// The script of the conversation view (runs in the webview): shows the
export {};
// HTML the extension renders, keeps the user's scroll position and open
// details, and posts the user's actions.

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

interface RenderMessage {
  type: 'render';
  sessionId: string;
  sessions: string[];
  turns: { id: string; html: string }[];
  usage: string;
  working: boolean;
  approvals: string;
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
const shown = new Map<string, string>(); // turn id -> html shown
let shownApprovals = '';

function submit(): void {
  const text = prompt.value.trim();
  if (!text) return;
  vscode.postMessage({ type: 'ask', text });
  prompt.value = '';
}

prompt.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});
send.addEventListener('click', submit);
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
  emptyEl.hidden = m.turns.length > 0;
  usage.textContent = m.usage;
  stop.hidden = !m.working;
  document.body.classList.toggle('working', m.working);
  if (shownApprovals !== m.approvals) {
    // What the user is typing in a review's comment box stays.
    const typing = document.activeElement instanceof HTMLTextAreaElement && approvals.contains(document.activeElement) ? document.activeElement : undefined;
    const kept = new Map([...approvals.querySelectorAll<HTMLTextAreaElement>('textarea.review-comment')].map((t) => [t.dataset.key, t.value]));
    approvals.innerHTML = m.approvals;
    shownApprovals = m.approvals;
    for (const t of approvals.querySelectorAll<HTMLTextAreaElement>('textarea.review-comment')) {
      const v = kept.get(t.dataset.key);
      if (v !== undefined) t.value = v;
      if (typing && typing.dataset.key === t.dataset.key) t.focus();
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
