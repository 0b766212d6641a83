#!/usr/bin/env node
// `npm test`'s build: brings dist/ up to date incrementally (tsconfig.build.json keeps dist/.tsbuildinfo), where
// `npm run build` compiles everything into an empty dist/. An incremental build leaves the output of a source file
// since deleted or renamed, which node would still load (dist/src/config.js shadowing dist/src/config/index.js):
// such orphans are removed.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
try {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
} catch {
  process.exit(1);
}

const OUTPUT = /(\.d\.ts\.map|\.d\.ts|\.js\.map|\.js)$/;
/** Output files under `dir` (a folder of dist/) whose source under the root is gone. */
function orphans(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return orphans(full);
    const match = OUTPUT.exec(entry.name);
    if (!match) return [];
    const source = path.join(root, path.relative(path.join(root, 'dist'), dir), entry.name.slice(0, -match[1].length));
    return ['.ts', '.tsx', '.js'].some((extension) => fs.existsSync(source + extension)) ? [] : [full];
  });
}

for (const folder of ['src', 'bench', 'scripts']) {
  const dir = path.join(root, 'dist', folder);
  if (!fs.existsSync(dir)) continue;
  for (const file of orphans(dir)) {
    fs.rmSync(file);
    process.stderr.write(`build: removed ${path.relative(root, file)}, whose source is gone\n`);
  }
}
