#!/usr/bin/env node
// For the worker image (Dockerfile): the worker's own dependencies are optional peer dependencies of the package, so
// a client-only install leaves them out, and devDependencies of this repository, so `npm ci` installs them. Made
// production dependencies of the image's package.json and lockfile here, `npm prune --omit=dev` keeps them.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const file = path.join(root, 'package.json');
const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
const optional = Object.entries(manifest.peerDependenciesMeta ?? {})
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);
for (const name of optional) {
  manifest.dependencies[name] = manifest.peerDependencies[name];
  // A package listed in both stays dev-only to npm.
  delete manifest.devDependencies[name];
}
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
// The prune reads which packages are dev-only from the lockfile: recompute it (the locked versions stay).
execFileSync('npm', ['install', '--package-lock-only', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
  cwd: root,
  stdio: 'inherit',
});
console.log(`production dependencies of the image: ${optional.join(', ')}`);
