// Regenerates the files beside this script: starts each MCP server over
// stdio, runs initialize + tools/list and writes {server, version, args,
// tools} to OUT/<name>.json.
//
//   mkdir /tmp/mcp && cd /tmp/mcp && npm init -y &&
//     npm install --ignore-scripts <the packages below>
//   node dump.js /tmp/mcp OUT [one package]
//
// Servers get an empty HOME and no other environment than PATH, so none
// can find credentials.
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const [dir, outDir, only] = process.argv.slice(2);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-root-'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-home-'));
const B = p => path.join(dir, 'node_modules/.bin', p);
const servers = [
  ['@modelcontextprotocol/server-filesystem', path.join(dir, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), [root]],
  ['@modelcontextprotocol/server-memory', B('mcp-server-memory'), []],
  ['@modelcontextprotocol/server-everything', B('mcp-server-everything'), ['stdio']],
  ['@modelcontextprotocol/server-sequential-thinking', B('mcp-server-sequential-thinking'), []],
  ['@modelcontextprotocol/server-github', B('mcp-server-github'), []],
  ['@modelcontextprotocol/server-puppeteer', B('mcp-server-puppeteer'), []],
  ['@modelcontextprotocol/server-pdf', B('mcp-pdf-server'), ['--stdio']],
  ['@playwright/mcp', B('playwright-mcp'), ['--caps=vision,pdf,testing,tracing']],
  ['chrome-devtools-mcp', B('chrome-devtools-mcp'), []],
  ['@wonderwhy-er/desktop-commander', B('desktop-commander'), []],
  ['@notionhq/notion-mcp-server', B('notion-mcp-server'), []],
  ['@antv/mcp-server-chart', B('mcp-server-chart'), []],
  ['@upstash/context7-mcp', B('context7-mcp'), []],
  ['@executeautomation/playwright-mcp-server', B('playwright-mcp-server'), []],
  ['mcp-server-kubernetes', B('mcp-server-kubernetes'), []],
  ['@agent-infra/mcp-server-commands', B('mcp-server-commands'), []],
  ['@agent-infra/mcp-server-filesystem', B('mcp-server-filesystem'), ['--allowed-directories', root]],
  ['@kazuph/mcp-taskmanager', B('mcp-taskmanager'), []],
  ['mcp-server-code-runner', B('mcp-server-code-runner'), []],
  ['@eslint/mcp', B('mcp'), []],
];
function version(pkg) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'))).version;
}
function run([pkg, bin, args]) {
  return new Promise(resolve => {
    const env = { PATH: process.env.PATH, HOME: home, NODE_ENV: 'production' };
    const p = spawn(bin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let buf = '', tools = [], stderr = '', done = false;
    const finish = (err) => {
      if (done) return; done = true; clearTimeout(timer); p.kill('SIGKILL');
      resolve({ pkg, err, tools, stderr: stderr.slice(-500) });
    };
    const timer = setTimeout(() => finish('timeout'), 60000);
    const send = m => p.stdin.write(JSON.stringify(m) + '\n');
    p.on('error', e => finish(String(e)));
    p.on('exit', c => finish('exited ' + c));
    p.stderr.on('data', d => { stderr += d; });
    p.stdout.on('data', d => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i); buf = buf.slice(i + 1);
        let m; try { m = JSON.parse(line); } catch { continue; }
        if (m.id === 1) {
          if (m.error) return finish('initialize: ' + JSON.stringify(m.error));
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        } else if (typeof m.id === 'number' && m.id >= 2) {
          if (m.error) return finish('tools/list: ' + JSON.stringify(m.error));
          tools.push(...m.result.tools);
          if (m.result.nextCursor) send({ jsonrpc: '2.0', id: m.id + 1, method: 'tools/list', params: { cursor: m.result.nextCursor } });
          else finish(null);
        }
      }
    });
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'schema-dump', version: '0' } } });
  });
}
(async () => {
  for (const s of servers) {
    if (only && s[0] !== only) continue;
    const r = await run(s);
    const v = version(s[0]);
    if (r.err || r.tools.length === 0) { console.log(`FAIL ${s[0]}@${v}: ${r.err} ${r.stderr.replace(/\n/g, ' | ')}`); continue; }
    const slug = s[0].replace(/^@/, '').replace(/[/]/g, '__');
    const args = JSON.stringify(s[2].map(a => a === root ? 'ROOT' : a));
    const tools = r.tools.map(t => JSON.stringify({ name: t.name, inputSchema: t.inputSchema }));
    const text = `{"server": ${JSON.stringify(s[0])}, "version": ${JSON.stringify(v)}, "args": ${args}, "tools": [\n${tools.join(',\n')}\n]}\n`;
    fs.writeFileSync(path.join(outDir, slug + '.json'), text);
    console.log(`ok ${s[0]}@${v}: ${r.tools.length} tools`);
  }
})();
