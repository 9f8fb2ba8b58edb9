// What the extension's end-to-end tests run on: the scripted model
// (agent-ls's fakemodel command), code-server with the packaged .vsix
// installed, and Chromium driven by playwright-core. Every process is
// started in a process group of its own and the whole group is killed
// at the end, on failure too.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

export const extDir = path.resolve(import.meta.dirname, '../..');
export const repo = path.resolve(extDir, '../..');
export const outDir = path.join(extDir, 'test-output');
const cache = process.env.VSCODE_CACHE ?? path.join(repo, '.cache', 'vscode');
const codeServer = path.join(cache, 'code-server', 'node_modules', '.bin', 'code-server');

/** How long any one thing the tests wait for may take before they fail. */
export const patience = 60_000;

const groups = new Set();

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

// A test runner that ends before `after` (a failed start, Ctrl-C, a
// timeout's TERM) still takes its children along.
const killAll = () => {
  for (const pid of groups) killGroup(pid, 'SIGKILL');
};
process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 }[sig]);
  });
}

/** Starts a command in a process group of its own, logging to a file. */
export function start(cmd, args, { env, cwd, log }) {
  const out = fs.openSync(log, 'a');
  const child = spawn(cmd, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', out] });
  groups.add(child.pid);
  child.on('exit', () => fs.closeSync(out));
  return child;
}

/** Ends the process group: TERM, then KILL for what is still there. */
export async function stop(child) {
  if (!child || !groups.has(child.pid)) return;
  killGroup(child.pid, 'SIGTERM');
  for (let i = 0; i < 50 && groupAlive(child.pid); i++) await sleep(100);
  killGroup(child.pid, 'SIGKILL');
  groups.delete(child.pid);
}

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function freePort() {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address();
  srv.close();
  await once(srv, 'close');
  return port;
}

async function firstLine(stream) {
  let buf = '';
  for await (const chunk of stream) {
    buf += chunk;
    const i = buf.indexOf('\n');
    if (i >= 0) return buf.slice(0, i).trim();
  }
  throw new Error('the process ended before printing a line');
}

async function waitFor(what, f) {
  const deadline = Date.now() + patience;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(200);
  }
}
export { waitFor };

/**
 * Everything the scenarios need, started: the fake model with the given
 * script, code-server on a loopback port with the .vsix installed and the
 * workspace's files (and homeFiles in its HOME) written, and a Chromium
 * page on it.
 */
export async function launch({ script, files, homeFiles = {}, userSettings, untrusted = false, name = '' }) {
  fs.mkdirSync(outDir, { recursive: true });
  const run = fs.mkdtempSync(path.join(outDir, 'run-'));
  const dirs = Object.fromEntries(['home', 'data', 'exts', 'workspace', 'tmp'].map((d) => [d, path.join(run, d)]));
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  // A file's text may be made from the run's folders; a script (#!) is
  // written executable.
  for (const [dir, written] of [[dirs.workspace, files], [dirs.home, homeFiles]]) {
    for (const [name, content] of Object.entries(written)) {
      const text = typeof content === 'function' ? content(dirs) : content;
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text, { mode: text.startsWith('#!') ? 0o755 : 0o644 });
    }
  }
  fs.mkdirSync(path.join(dirs.data, 'User'), { recursive: true });
  fs.writeFileSync(path.join(dirs.data, 'User', 'settings.json'), JSON.stringify(userSettings, null, 2));
  const env = { ...process.env, HOME: dirs.home, TMPDIR: dirs.tmp, XDG_CACHE_HOME: path.join(dirs.home, '.cache'), XDG_CONFIG_HOME: path.join(dirs.home, '.config'), XDG_STATE_HOME: path.join(dirs.home, '.local/state'), XDG_DATA_HOME: path.join(dirs.home, '.local/share') };
  delete env.OPENAI_API_KEY; // the key must come from the extension's secret storage
  delete env.OPENAI_BASE_URL;
  delete env.AGENT_LS_MODEL;

  // The scripted model: agent-ls's own fakemodel command.
  const fakemodel = path.join(run, 'fakemodel');
  execFileSync('go', ['build', '-o', fakemodel, './internal/model/fakemodel/cmd/fakemodel'], { cwd: repo, stdio: 'inherit' });
  const scriptFile = path.join(run, 'script.json');
  fs.writeFileSync(scriptFile, JSON.stringify(script, null, 2));
  const requests = path.join(run, 'requests.jsonl');
  const model = start(fakemodel, ['-script', scriptFile, '-log', requests], { env, cwd: run, log: path.join(run, 'fakemodel.log') });
  model.stdout.setEncoding('utf8');
  const baseUrl = await firstLine(model.stdout);

  const vsix = fs.readdirSync(path.join(extDir, 'dist')).find((f) => f.endsWith('.vsix') && f.includes(`${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch}`));
  if (!vsix) throw new Error('no .vsix for this platform in dist/: run make vsix');
  const csArgs = ['--user-data-dir', dirs.data, '--extensions-dir', dirs.exts];
  execFileSync(codeServer, [...csArgs, '--install-extension', path.join(extDir, 'dist', vsix)], { env, stdio: 'inherit' });

  const port = await freePort();
  const csEnv = { ...env, OPENAI_BASE_URL: baseUrl, AGENT_LS_STREAM_IDLE_TIMEOUT_MS: '60000' };
  // An untrusted workspace: code-server's workspace trust stays on, and
  // the folder, never trusted, opens in Restricted Mode.
  const trustArgs = untrusted ? [] : ['--disable-workspace-trust'];
  const cs = start(codeServer, [...csArgs, '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none', '--disable-telemetry', '--disable-update-check', ...trustArgs, dirs.workspace], { env: csEnv, cwd: run, log: path.join(run, 'code-server.log') });
  cs.stdout.resume();
  await waitFor('code-server', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    env: env, // its crash reports and caches go to the run's HOME
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(patience);
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.workspace)}`);
  await page.waitForSelector('.monaco-workbench');

  let shot = 0;
  const prefix = name ? `${name}-` : '';
  return {
    run,
    dirs,
    page,
    /** The requests the model received, in order. */
    requests: () => fs.readFileSync(requests, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)),
    async screenshot(what) {
      shot++;
      await page.screenshot({ path: path.join(outDir, `${prefix}${String(shot).padStart(2, '0')}-${what}.png`) });
    },
    async close() {
      await browser.close().catch(() => undefined);
      await stop(cs);
      await stop(model);
    },
  };
}
