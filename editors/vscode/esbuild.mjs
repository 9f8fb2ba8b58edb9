// Bundles the extension (Node, vscode external) and the view's script
// (browser); with --tests, also the unit tests, for node --test.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const common = { bundle: true, sourcemap: false, logLevel: 'warning', target: 'es2022' };

await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', external: ['vscode'], minify: true });
await build({ ...common, entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js', platform: 'browser', format: 'iife', minify: true });

if (process.argv.includes('--tests')) {
  const tests = readdirSync('test/unit').filter((f) => f.endsWith('.test.ts')).map((f) => `test/unit/${f}`);
  await build({ ...common, entryPoints: tests, outdir: 'out/unit', platform: 'node', format: 'cjs', external: ['vscode'] });
}
