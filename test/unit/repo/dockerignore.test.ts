import * as fs from 'node:fs';
import * as path from 'node:path';

// Docker's .dockerignore matching for the patterns used here: exact names and a trailing `.*` or leading `*.`.
function ignored(file: string, patterns: string[]): boolean {
  return patterns.some((pattern) => {
    const regex = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    return regex.test(file);
  });
}

test('.dockerignore keeps secrets and the repository out of the image', () => {
  const patterns = fs
    .readFileSync(path.join(__dirname, '..', '..', '..', '.dockerignore'), 'utf-8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  for (const file of ['.env', '.env.production', 'server.pem', 'tls.key', '.git/config', 'node_modules/x']) {
    expect({ file, ignored: ignored(file, patterns) }).toEqual({ file, ignored: true });
  }
  for (const file of ['package.json', 'src/client.ts', 'README.md']) {
    expect({ file, ignored: ignored(file, patterns) }).toEqual({ file, ignored: false });
  }
});
