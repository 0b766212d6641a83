import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProgram } from '../../../src/cli/main';
import { CliError, EXIT } from '../../../src/cli/errors';
import { SRC, loadedBy, relative } from '../../helpers/module-graph';

// The program starts by loading its command groups only: a command's module, the client and the worker load when
// that command runs, so `--help`, a usage error and every light command start fast.
describe('scratchpad start-up', () => {
  const loaded = loadedBy(path.join(SRC, 'cli', 'main.ts'));

  it("loads no command, client or worker module, nor the Temporal SDK's, before a command runs", () => {
    expect(
      relative(loaded).filter((file) => /^(cli\/(commands|demo)|clients|workers|activities)\//.test(file)),
    ).toEqual([]);
    const temporal = [...loaded].filter((file) =>
      /^import (?!type )[^;]*from '@temporalio\/(client|worker|workflow|proto)'/m.test(fs.readFileSync(file, 'utf8')),
    );
    expect(relative(temporal)).toEqual([]);
  });

  it("loads a command's module when it runs", async () => {
    const run = buildProgram(() => undefined).parseAsync(['node', 'scratchpad', 'research', 'directive', 'run', ' ']);
    await expect(run).rejects.toThrow(CliError);
    await expect(run).rejects.toMatchObject({ message: 'a directive is 1-2000 characters', exitCode: EXIT.usage });
  });
});
