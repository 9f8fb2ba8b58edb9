// The @ completion of the prompt box: while an @ word is typed, the
// extension is asked what it completes to (agent/completeMention: files,
// folders, @diagnostics, and for @#Name the workspace's symbols) and a
// list shows above the box; Tab or Enter (or a click) takes the chosen
// item, arrows move, Escape closes. The chosen mentions go with the
// prompt when it is sent.

import { insertMention, mentionAt, type Chosen, type MentionItem } from '../mention';

export interface MentionBox {
  /** The mentions chosen since the last call. */
  take(): Chosen[];
}

export function mentionBox(prompt: HTMLTextAreaElement, list: HTMLElement, post: (m: unknown) => void): MentionBox {
  let chosen: Chosen[] = [];
  let items: MentionItem[] = [];
  let active = 0;
  let asked = 0;
  let at: { start: number; query: string } | undefined;

  const hide = () => {
    items = [];
    list.hidden = true;
    list.replaceChildren();
  };
  const show = (found: MentionItem[]) => {
    items = found;
    active = 0;
    list.replaceChildren(
      ...found.map((it, i) => {
        const li = document.createElement('li');
        li.setAttribute('role', 'option');
        li.dataset.index = String(i);
        li.className = `mention mention-${it.kind}` + (i === active ? ' active' : '');
        li.textContent = '@' + it.label;
        if (it.detail) {
          const d = document.createElement('span');
          d.className = 'mention-detail';
          d.textContent = ' ' + it.detail;
          li.append(d);
        }
        return li;
      }),
    );
    list.hidden = found.length === 0;
  };
  const move = (by: number) => {
    if (items.length === 0) return;
    active = (active + by + items.length) % items.length;
    list.querySelectorAll('li').forEach((li, i) => li.classList.toggle('active', i === active));
  };
  const pick = (i: number) => {
    const it = items[i];
    if (!it || !at) return;
    const r = insertMention(prompt.value, at.start, prompt.selectionStart, it.label);
    prompt.value = r.text;
    prompt.setSelectionRange(r.caret, r.caret);
    chosen.push({ label: it.label, uri: it.uri, kind: it.kind, range: it.range });
    hide();
    prompt.focus();
  };

  prompt.addEventListener('input', () => {
    at = mentionAt(prompt.value, prompt.selectionStart);
    if (!at) return hide();
    post({ type: 'completeMention', id: ++asked, query: at.query });
  });
  prompt.addEventListener('keydown', (e) => {
    if (list.hidden) return;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1),
      ArrowUp: () => move(-1),
      Enter: () => pick(active),
      Tab: () => pick(active),
      Escape: hide,
    };
    const f = keys[e.key];
    if (!f || e.isComposing) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    f();
  });
  list.addEventListener('mousedown', (e) => {
    const li = (e.target as HTMLElement).closest('li');
    if (!li) return;
    e.preventDefault();
    pick(Number(li.dataset.index));
  });
  window.addEventListener('message', (e: MessageEvent) => {
    if (e.data?.type === 'mentions' && e.data.id === asked && at) show(e.data.items as MentionItem[]);
  });
  return {
    take() {
      const c = chosen;
      chosen = [];
      return c;
    },
  };
}
