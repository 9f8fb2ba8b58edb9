// Builds the extension and packs it with vsce into .vsix files that carry
// the agent-ls binary, one per platform (VS Code's platform-specific
// extensions), in dist/:
//
//   npm run package       this machine's platform, with the binary `make build` makes
//   npm run package:all   linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64,
//                         with the binaries `make vsix-binaries` makes
//
// Given the binaries, it runs no make: AGENT_LS_BINARY is the one for
// this machine's .vsix (make vsix gives its stripped build), and
// AGENT_LS_VSIX_BINARIES a folder of TARGET/agent-ls[.exe] for --all
// (scripts/release.sh gives its own), AGENT_LS_VSIX_TARGETS the targets
// to pack (space-separated; default all five).
//
// The binary is staged in bin/ for vsce and removed afterwards.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join, resolve } from 'node:path';

const here = resolve(import.meta.dirname, '..');
const repo = resolve(here, '../..');
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const all = process.argv.includes('--all');

const allTargets = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
const targets = process.env.AGENT_LS_VSIX_TARGETS ? process.env.AGENT_LS_VSIX_TARGETS.split(/\s+/).filter(Boolean) : allTargets;
const given = all ? process.env.AGENT_LS_VSIX_BINARIES : process.env.AGENT_LS_BINARY;
const native = `${platform()}-${arch()}`;

function run(cmd, args, opts = {}) {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', cwd: here, ...opts });
}

function binaryFor(target) {
  const exe = target.startsWith('win32') ? 'agent-ls.exe' : 'agent-ls';
  if (all) return join(given || join(repo, 'bin', 'vsix'), target, exe);
  return given || join(repo, 'bin', exe);
}

if (!all && !allTargets.includes(native)) {
  console.error(`package: no agent-ls build for ${native}; use npm run package:all`);
  process.exit(1);
}
if (!given) run('make', ['-C', repo, all ? 'vsix-binaries' : 'build']);
run('node', ['esbuild.mjs']);

const vsce = join(here, 'node_modules', '.bin', 'vsce');
mkdirSync(join(here, 'dist'), { recursive: true });
for (const target of all ? targets : [native]) {
  const src = binaryFor(target);
  if (!existsSync(src)) throw new Error(`package: ${src} is missing`);
  const exe = target.startsWith('win32') ? 'agent-ls.exe' : 'agent-ls';
  rmSync(join(here, 'bin'), { recursive: true, force: true });
  mkdirSync(join(here, 'bin'));
  copyFileSync(src, join(here, 'bin', exe));
  chmodSync(join(here, 'bin', exe), 0o755);
  const out = join(here, 'dist', `${pkg.name}-${target}-${pkg.version}.vsix`);
  try {
    run(vsce, ['package', '--no-dependencies', '--skip-license', '--target', target, '--out', out]);
  } finally {
    rmSync(join(here, 'bin'), { recursive: true, force: true });
  }
}
