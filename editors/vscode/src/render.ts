// Turns the conversation state into HTML for the webview. Pure (no DOM):
// the webview sets innerHTML from it and the unit tests read it. Markdown
// goes through markdown-it with raw HTML off, so the model's text cannot
// inject markup; everything else is escaped here. Every text shown also
// goes through visible first (text(), markdown()): escaped HTML still
// carries bidi overrides and control characters, which would make a
// command, a file name or an answer read as something else.

import MarkdownIt from 'markdown-it';
import type { Prompt } from './approval';
import { counts, type Review } from './review';
import type { OpenQuestion } from './question';
import type { QueuedPrompt } from './protocol';
import type { Item, State, Turn } from './conversation';
import { usageLabel } from './conversation';
import { visible, visibleLine } from './visible';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Text to show in HTML: its hidden characters escaped, then its markup. */
export function text(s: string | undefined): string {
  return escapeHtml(visible(s));
}

/** A prompt's text, its @-mentions shown as chips. */
export function promptText(s: string | undefined): string {
  return text(s).replace(/(^|\s)(@[^\s<]+)/g, '$1<span class="mention-chip">$2</span>');
}

export function markdown(s: string): string {
  return md.render(visible(s));
}

/** The file's name, for a change's line (its hidden characters escaped). */
export function fileLabel(uri: string): string {
  const path = decodeURIComponent(uri.replace(/^file:\/\//, ''));
  const i = path.lastIndexOf('/');
  return visibleLine(i < 0 ? path : path.slice(i + 1));
}

const statusIcon: Record<string, string> = {
  completed: '✓',
  failed: '✗',
  rejected: '⊘',
  applied: '✓',
  proposed: '…',
  interrupted: '■',
};

export function renderItem(it: Item, turnId: string): string {
  switch (it.kind) {
    case 'message':
      return `<div class="message${it.done ? '' : ' streaming'}">${markdown(it.text)}</div>`;
    case 'reasoning':
      return `<details class="reasoning"><summary>Thinking</summary>${markdown(it.text)}</details>`;
    case 'tool': {
      const out = it.output
        ? `<pre class="output">${text(it.output)}</pre>`
        : '';
      const dur = it.durationMs !== undefined ? ` <span class="dim">${(it.durationMs / 1000).toFixed(1)} s</span>` : '';
      return (
        `<div class="card tool ${escapeHtml(it.status)}" data-call="${escapeHtml(it.callId)}">` +
        `<div class="card-head">${it.status === 'running' ? '<span class="spinner"></span>' : `<span class="icon">${statusIcon[it.status] ?? ''}</span>`} ` +
        `<span class="title">${text(visibleLine(it.title || it.tool))}</span>${dur}</div>${out}</div>`
      );
    }
    case 'fileChange': {
      const rows = it.changes
        .map((c, i) => {
          const name = c.kind === 'move' && c.newUri ? `${fileLabel(c.uri)} → ${fileLabel(c.newUri)}` : fileLabel(c.uri);
          return (
            `<div class="change"><span class="file" title="${text(visibleLine(c.uri))}">${escapeHtml(name)}</span> ` +
            `<span class="add">+${c.additions}</span> <span class="del">-${c.deletions}</span> ` +
            `<button class="link" data-action="diff" data-turn="${escapeHtml(turnId)}" data-call="${escapeHtml(it.callId)}" data-index="${i}">Diff</button></div>`
          );
        })
        .join('');
      return `<div class="card filechange ${escapeHtml(it.status)}"><div class="card-head"><span class="icon">${statusIcon[it.status] ?? ''}</span> <span class="title">${escapeHtml(changeTitle(it.status))}</span></div>${rows}</div>`;
    }
    case 'plan': {
      const steps = it.steps
        .map((p) => {
          const mark = p.status === 'completed' ? '☑' : p.status === 'in_progress' ? '◐' : '☐';
          return `<li class="step ${escapeHtml(p.status)}"><span class="mark">${mark}</span> ${text(visibleLine(p.step))}</li>`;
        })
        .join('');
      const why = it.explanation ? `<div class="dim">${text(it.explanation)}</div>` : '';
      return `<div class="card plan"><div class="card-head">Plan</div>${why}<ul class="checklist">${steps}</ul></div>`;
    }
    case 'notice':
      return `<div class="notice dim">${text(it.text)}</div>`;
    case 'steered':
      return `<div class="prompt steered"><div class="dim">You, while it worked:</div>${text(it.text)}</div>`;
  }
}

function changeTitle(status: string): string {
  switch (status) {
    case 'applied':
      return 'Changed files';
    case 'proposed':
      return 'Proposed changes';
    case 'rejected':
      return 'Rejected changes';
    case 'failed':
      return 'Changes that failed';
  }
  return 'File changes';
}

/**
 * A turn; approvable adds the Approve button under it (the last turn of
 * a session in plan mode, once it has ended).
 */
export function renderTurn(t: Turn, approvable = false): string {
  let items = t.items.map((it) => renderItem(it, t.turnId)).join('');
  if (approvable)
    items +=
      `<div class="card plan-approve"><span class="title">Approve the plan to carry it out in default mode, or send another prompt to refine it.</span>` +
      `<div class="actions"><button data-action="approvePlan">Approve plan</button></div></div>`;
  let end = '';
  if (t.status === 'interrupted') end = `<div class="turn-end interrupted">■ Stopped</div>`;
  else if (t.status === 'failed') end = `<div class="turn-end failed">✗ ${text(t.error || 'The turn failed')}</div>`;
  else if (t.status === 'running') end = `<div class="turn-end working"><span class="spinner"></span> Working…</div>`;
  let mode = t.plan ? '<span class="tag" title="This turn ran in plan mode: it changed nothing">plan</span> ' : '';
  if (t.rewound) mode = '<span class="tag" title="Rewound: the model no longer sees this turn">rewound</span> ' + mode;
  else if (t.status !== 'running')
    end +=
      `<div class="actions turn-actions"><button data-action="rewind" data-turn="${escapeHtml(t.turnId)}" title="Take the conversation and the files back to before this turn (and every later one), keeping your own edits">Restore checkpoint</button> ` +
      `<button class="secondary" data-action="editPrompt" data-turn="${escapeHtml(t.turnId)}" data-prompt="${encodeURIComponent(t.prompt)}" title="Change this prompt and send it again: the conversation and the files go back to before this turn first">Edit prompt</button></div>`;
  return `<section class="turn ${escapeHtml(t.status)}${t.plan ? ' plan-mode' : ''}${t.rewound ? ' rewound' : ''}" data-turn="${escapeHtml(t.turnId)}"><div class="prompt">${mode}${promptText(t.prompt)}</div>${items}${end}</section>`;
}

export function renderState(s: State): { turns: string; usage: string; working: boolean } {
  const last = s.turns[s.turns.length - 1];
  return {
    turns: s.turns.map((t) => renderTurn(t)).join(''),
    usage: usageLabel(s.usage),
    working: !!last && last.status === 'running',
  };
}

/** An approval waiting for the user: what, where, why, and the buttons. */
export function renderApproval(a: Prompt & { key: string }): string {
  const buttons = a.choices
    .map((c, i) => `<button class="${i === 0 ? '' : 'secondary'}" data-action="approval" data-key="${escapeHtml(a.key)}" data-index="${i}">${escapeHtml(c.title)}</button>`)
    .join(' ');
  const head = a.modal ? a.message : a.message.replace(/ \([^]*\)$/, '');
  const detail = a.detail ? `<pre class="detail">${text(a.detail)}</pre>` : '';
  return `<div class="card approval"><div class="card-head"><span class="icon">⚠</span> <span class="title">${text(head)}</span></div>${detail}<div class="actions">${buttons}</div></div>`;
}

/** One line of a hunk, coloured by its side. */
function hunkLine(l: string): string {
  const cls = l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('\\') ? 'dim' : 'ctx';
  return `<span class="${cls}">${text(l)}</span>`;
}

/**
 * A change waiting for review: each file with its hunks, Accept and
 * Reject on each, the comment box and the buttons that answer. Buttons
 * carry the review's key and what they do (data-review-action).
 */
export function renderReview(r: Review): string {
  const key = escapeHtml(r.key);
  const btn = (label: string, action: string, extra: string, cls = 'secondary') =>
    `<button class="${cls}" data-action="review" data-key="${key}" data-review-action="${action}" ${extra}>${escapeHtml(label)}</button>`;
  const files = r.files
    .map((f, fi) => {
      const name = f.kind === 'move' && f.newUri ? `${fileLabel(f.uri)} → ${fileLabel(f.newUri)}` : fileLabel(f.uri);
      const hunks = f.hunks
        .map((h, hi) => {
          const state = h.accept === true ? 'accepted' : h.accept === false ? 'rejected' : 'open';
          const at = `data-file="${fi}" data-hunk="${hi}"`;
          return (
            `<div class="hunk ${state}" data-file="${fi}" data-hunk="${hi}"><div class="hunk-head"><code>${text(visibleLine(h.header))}</code> ` +
            btn('Accept', 'accept', at, h.accept === true ? 'chosen' : 'secondary') +
            ' ' +
            btn('Reject', 'reject', at, h.accept === false ? 'chosen' : 'secondary') +
            `<span class="dim state">${state === 'open' ? '' : state}</span></div>` +
            `<pre class="hunk-lines">${h.lines.map(hunkLine).join('\n')}</pre></div>`
          );
        })
        .join('');
      return (
        `<div class="review-file"><div class="change"><span class="file" title="${text(visibleLine(f.uri))}">${escapeHtml(name)}</span> ` +
        `<span class="add">+${f.additions}</span> <span class="del">-${f.deletions}</span> ` +
        (f.hunks.length ? btn('Diff', 'diff', `data-file="${fi}"`, 'link') : `<span class="dim">${text(visibleLine(f.kind))}</span>`) +
        `</div>${hunks}</div>`
      );
    })
    .join('');
  const c = counts(r);
  return (
    `<div class="card review" data-key="${key}"><div class="card-head"><span class="icon">✎</span> <span class="title">Review the proposed change</span>` +
    `<span class="dim">${c.accepted} accepted · ${c.rejected} rejected · ${c.open} undecided</span></div>${files}` +
    `<textarea class="review-comment" data-key="${key}" rows="2" placeholder="A comment for the agent (optional)">${escapeHtml(r.comment)}</textarea>` +
    `<div class="actions">${btn('Apply accepted hunks', 'submit', '', '')} ${btn('Accept all', 'acceptAll', '')} ${btn('Reject all', 'rejectAll', '')}</div></div>`
  );
}

/**
 * The prompts waiting to run after the running turn, under the input: each
 * with Edit, Remove and Send now (into the running turn); Resume when
 * the queue waits after a turn that did not complete.
 */
export function renderQueue(items: readonly QueuedPrompt[], paused: boolean): string {
  if (!items.length) return '';
  const rows = items
    .map((q, i) => {
      const id = escapeHtml(q.turnId);
      const btn = (label: string, action: string, title: string) =>
        `<button class="link" data-action="${action}" data-turn="${id}" title="${escapeHtml(title)}">${label}</button>`;
      // An approved plan waits to start its turn: it is no prompt to
      // edit or to send into the running turn.
      if (q.mode === 'default')
        return (
          `<div class="queued approval" data-turn="${id}"><span class="dim">${i + 1}.</span> <span class="queued-text">Approved plan: carry it out</span>` +
          `<span class="queued-actions">${btn('Remove', 'removeQueued', 'Take the approval back')}</span></div>`
        );
      return (
        `<div class="queued" data-turn="${id}"><span class="dim">${i + 1}.</span> <span class="queued-text">${text(q.prompt)}</span>` +
        `<span class="queued-actions">${btn('Edit', 'editQueued', 'Edit this prompt')} ${btn('Remove', 'removeQueued', 'Remove it from the queue')} ` +
        `${btn('Send now', 'sendNow', 'Send it into the running turn now')}</span></div>`
      );
    })
    .join('');
  const head = paused
    ? `<div class="queue-head">The queue waits: the last turn did not complete. <button data-action="resumeQueue">Resume queue</button></div>`
    : `<div class="queue-head dim">Queued: runs when the turn ends</div>`;
  return `<div class="queue${paused ? ' paused' : ''}">${head}${rows}</div>`;
}

/** The model's questions: options as buttons, an Other box, and Send when there are several. */
export function renderQuestion(q: OpenQuestion): string {
  const key = escapeHtml(q.key);
  const many = q.questions.length > 1;
  const blocks = q.questions
    .map((x) => {
      const id = escapeHtml(x.id);
      const pick = q.picks[x.id];
      const options = x.options
        .map((o, i) => {
          const chosen = pick?.label === o.label && pick.text === undefined;
          const desc = o.description ? ` title="${text(visibleLine(o.description))}"` : '';
          return (
            `<button class="${chosen ? 'chosen' : 'secondary'} option" data-action="question" data-key="${key}" data-id="${id}" data-index="${i}"${desc}>${text(visibleLine(o.label))}</button>` +
            (o.description ? `<span class="dim option-desc">${text(visibleLine(o.description))}</span>` : '')
          );
        })
        .join('');
      const other = pick?.text !== undefined ? escapeHtml(pick.text) : '';
      return (
        `<div class="question" data-id="${id}"><div class="question-head">${x.header ? `<span class="tag">${text(visibleLine(x.header))}</span> ` : ''}${text(x.question)}</div>` +
        `<div class="options">${options}</div>` +
        `<div class="other"><input class="question-other" data-key="${key}" data-id="${id}" placeholder="Other: your own answer" value="${other}">` +
        `<button class="secondary" data-action="questionOther" data-key="${key}" data-id="${id}">${many ? 'Use' : 'Send'}</button></div></div>`
      );
    })
    .join('');
  const submit = many ? `<div class="actions"><button data-action="questionSubmit" data-key="${key}">Send answers</button></div>` : '';
  return `<div class="card ask" data-key="${key}"><div class="card-head"><span class="icon">?</span> <span class="title">The agent asks</span></div>${blocks}${submit}</div>`;
}
