import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerQuery, convertCharacter, type LanguageHost, type Pos } from '../../src/language';

// Shapes of VS Code's objects, as the execute*Provider commands return them.
class Uri {
  constructor(private s: string) {}
  toString() {
    return this.s;
  }
}
const r = (l: number, c: number, l2 = l, c2 = c + 1) => ({ start: { line: l, character: c }, end: { line: l2, character: c2 } });

function fakeHost(answers: Record<string, unknown>, lines: Record<string, string[]> = {}) {
  const calls: Array<{ command: string; args: unknown[] }> = [];
  const opened: string[] = [];
  const host: LanguageHost = {
    execute: async (command, ...args) => {
      calls.push({ command, args });
      return answers[command];
    },
    uri: (s) => new Uri(s),
    position: (p: Pos) => ({ ...p, isPosition: true }),
    open: async (u) => {
      opened.push(u.toString());
    },
    diagnostics: (u) => {
      const all: Array<[Uri, unknown[]]> = [
        [new Uri('file:///w/a.ts'), [{ range: r(1, 2), message: 'bad', severity: 0, source: 'ts', code: { value: 2322, target: new Uri('x') } }]],
        [new Uri('file:///w/b.ts'), []],
        [new Uri('git:/w/a.ts'), [{ range: r(0, 0), message: 'other scheme', severity: 1 }]],
      ];
      return u ? all.filter(([x]) => x.toString() === u.toString()) : all;
    },
    lineText: async (u, n) => lines[u]?.[n] ?? '',
  };
  return { host, calls, opened };
}

test('character offsets convert between UTF-16, UTF-8 and UTF-32 exactly, astral characters included', () => {
  const line = 'const s = "𝄞é" + target;';
  // target starts at code point 17 (0-based), UTF-16 unit 18, byte 21.
  assert.equal(convertCharacter(line, 18, 'utf-16', 'utf-32'), 17);
  assert.equal(convertCharacter(line, 18, 'utf-16', 'utf-8'), 21);
  assert.equal(convertCharacter(line, 21, 'utf-8', 'utf-16'), 18);
  assert.equal(convertCharacter(line, 17, 'utf-32', 'utf-16'), 18);
  assert.equal(convertCharacter(line, 5, 'utf-16', 'utf-16'), 5);
});

test('definition: the document is opened unseen, Locations and LocationLinks come back as LSP JSON', async () => {
  const { host, calls, opened } = fakeHost({
    'vscode.executeDefinitionProvider': [
      { uri: new Uri('file:///w/a.ts'), range: r(3, 9) },
      { targetUri: new Uri('file:///w/b.ts'), targetRange: r(0, 0, 4, 1), targetSelectionRange: r(0, 16) },
    ],
  });
  const res = await answerQuery(host, { sessionId: 's', turnId: 't', kind: 'definition', uri: 'file:///w/c.ts', position: { line: 2, character: 4 } });
  assert.deepEqual(opened, ['file:///w/c.ts']);
  assert.equal(calls[0].command, 'vscode.executeDefinitionProvider');
  assert.deepEqual(calls[0].args[1], { line: 2, character: 4, isPosition: true });
  assert.deepEqual(res, [
    { uri: 'file:///w/a.ts', range: r(3, 9) },
    { targetUri: 'file:///w/b.ts', targetRange: r(0, 0, 4, 1), targetSelectionRange: r(0, 16) },
  ]);
});

test('positions go to VS Code in UTF-16 and come back in the agent\u2019s encoding', async () => {
  const line = 'const s = "𝄞é" + target;';
  const { host, calls } = fakeHost(
    { 'vscode.executeReferenceProvider': [{ uri: new Uri('file:///w/a.ts'), range: r(0, 18, 0, 24) }] },
    { 'file:///w/a.ts': [line] },
  );
  const res = await answerQuery(host, { sessionId: 's', turnId: 't', kind: 'references', uri: 'file:///w/a.ts', position: { line: 0, character: 21 } }, 'utf-8');
  assert.deepEqual(calls[0].args[1], { line: 0, character: 18, isPosition: true });
  assert.deepEqual(res, [{ uri: 'file:///w/a.ts', range: r(0, 21, 0, 27) }]);
});

test('hover, symbols, rename and diagnostics answer LSP result types', async () => {
  const edit = { entries: () => [[new Uri('file:///w/a.ts'), [{ range: r(1, 4, 1, 10), newText: 'renamed' }]]] };
  const { host } = fakeHost({
    'vscode.executeHoverProvider': [{ contents: [{ value: 'function greet(): string' }, 'Says hello.'] }],
    'vscode.executeWorkspaceSymbolProvider': [{ name: 'greet', kind: 11, containerName: 'm', location: { uri: new Uri('file:///w/a.ts'), range: r(1, 9) } }],
    'vscode.executeDocumentSymbolProvider': [{ name: 'A', kind: 4, detail: '', range: r(0, 0, 5, 1), selectionRange: r(0, 6), children: [{ name: 'f', kind: 5, range: r(1, 2), selectionRange: r(1, 2), children: [] }] }],
    'vscode.executeDocumentRenameProvider': edit,
  });
  const q = { sessionId: 's', turnId: 't', uri: 'file:///w/a.ts', position: { line: 1, character: 5 } };
  assert.deepEqual(await answerQuery(host, { ...q, kind: 'hover' }), { contents: { kind: 'markdown', value: 'function greet(): string\n\n---\n\nSays hello.' } });
  assert.deepEqual(await answerQuery(host, { sessionId: 's', turnId: 't', kind: 'workspaceSymbols', query: 'gr' }), [
    { name: 'greet', kind: 12, location: { uri: 'file:///w/a.ts', range: r(1, 9) }, containerName: 'm' },
  ]);
  assert.deepEqual(await answerQuery(host, { ...q, kind: 'documentSymbols' }), [
    { name: 'A', kind: 5, range: r(0, 0, 5, 1), selectionRange: r(0, 6), children: [{ name: 'f', kind: 6, range: r(1, 2), selectionRange: r(1, 2), children: [] }] },
  ]);
  assert.deepEqual(await answerQuery(host, { ...q, kind: 'rename', newName: 'renamed' }), {
    changes: { 'file:///w/a.ts': [{ range: r(1, 4, 1, 10), newText: 'renamed' }] },
  });
  assert.deepEqual(await answerQuery(host, { sessionId: 's', turnId: 't', kind: 'diagnostics' }), [
    { uri: 'file:///w/a.ts', diagnostics: [{ range: r(1, 2), severity: 1, message: 'bad', source: 'ts', code: 2322 }] },
  ]);
  assert.deepEqual(await answerQuery(host, { sessionId: 's', turnId: 't', kind: 'diagnostics', uri: 'file:///w/b.ts' }), [{ uri: 'file:///w/b.ts', diagnostics: [] }]);
});
