#!/usr/bin/env node
// The build of `npm test` and `npm run build` (which empties dist/ first): brings dist/ up to date incrementally
// (tsconfig.build.json keeps dist/.tsbuildinfo), and not at all when no input changed since the last build that
// passed. An incremental build leaves the output of a source file since deleted or renamed, which node would still
// load (dist/src/config.js shadowing dist/src/config/index.js): such orphans are removed.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
/** Written after a build that passed: a later run with no input newer than it has nothing to do. */
const STAMP = path.join(root, 'dist', '.build-passed');
/** What the build reads besides node_modules' type declarations, which package-lock.json stands for. */
const INPUTS = ['src', 'bench', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

/** The latest modification time under `file` (a file or a folder), in milliseconds. */
function newest(file) {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(file).map((name) => newest(path.join(file, name))));
}

// tsc takes about 5 s even when nothing changed (it reads every declaration it depends on), as after `npm ci`, whose
// prepare script has just built.
const built = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (built <= Math.max(...INPUTS.map((input) => newest(path.join(root, input))))) {
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: root,
      stdio: 'inherit',
    });
  } catch {
    process.exit(1);
  }
  fs.writeFileSync(STAMP, '');
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
