import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundleCacheDirectory, cachedWorkflowBundle } from '../../../src/workers/bundle-cache';

describe('the workflow bundle kept between commands', () => {
  it('is built once, also by calls made together, and then reused; a bundle of other code goes once it is a day old', async () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
    try {
      const older = path.join(directory, 'workflow-bundle-0000.js');
      const recent = path.join(directory, 'workflow-bundle-1111.js');
      fs.writeFileSync(older, 'older code');
      fs.writeFileSync(recent, 'another build, in use');
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
      fs.utimesSync(older, twoDaysAgo, twoDaysAgo);
      const firstBuild = cachedWorkflowBundle(directory).then((bundle) => ({
        ...bundle,
        inode: fs.statSync(bundle.codePath).ino,
      }));
      const alongside = cachedWorkflowBundle(directory);
      const first = await firstBuild;
      // The call made alongside waited for that bundle instead of building (and renaming into place) one of its own.
      expect((await alongside).codePath).toBe(first.codePath);
      expect(fs.statSync(first.codePath).ino).toBe(first.inode);
      const built = fs.statSync(first.codePath).mtimeMs;
      expect(fs.readFileSync(first.codePath, 'utf8')).toContain('agentCycle');
      const second = await cachedWorkflowBundle(directory);
      expect(second.codePath).toBe(first.codePath);
      expect(fs.statSync(second.codePath).mtimeMs).toBe(built);
      expect(fs.readdirSync(directory).sort()).toEqual([path.basename(recent), path.basename(first.codePath)].sort());
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it('is not kept in a folder other users could write to', () => {
    const directory = bundleCacheDirectory();
    expect(directory).toBeDefined();
    const mode = fs.statSync(directory as string).mode & 0o777;
    try {
      fs.chmodSync(directory as string, 0o777);
      expect(bundleCacheDirectory()).toBeUndefined();
    } finally {
      fs.chmodSync(directory as string, mode);
    }
  });
});
