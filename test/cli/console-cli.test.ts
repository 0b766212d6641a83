import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BackgroundCli, runCli } from '../helpers/cli';
import { uniqueTaskQueue, waitFor } from '../helpers/temporal';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'scratchpad-console-cli-'));
const place = { home, taskQueue: uniqueTaskQueue('console-cli') };

afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('scratchpad console', () => {
  it('prints a URL with a token that signs the browser in, and serves the agents list', async () => {
    const cli = BackgroundCli.start(['console'], place);
    try {
      const printed = await waitFor(() => /Console at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(cli.stdout), {
        what: 'the console to print its URL',
      });
      const url = (printed as RegExpExecArray)[1] as string;
      const signIn = await fetch(url, { redirect: 'manual' });
      expect(signIn.status).toBe(303);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] as string;
      expect(cookie).toMatch(/^scratchpad_console_\d+=/);
      const list = await fetch(new URL('/', url), { headers: { cookie } });
      expect(list.status).toBe(200);
      expect(await list.text()).toContain('<h1>Agents</h1>');
      expect((await fetch(new URL('/', url))).status).toBe(401);
    } finally {
      await cli.stop();
    }
  });

  it('refuses a bad --port with a usage error', async () => {
    const run = await runCli(['console', '--port', 'eighty'], place);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('invalid --port "eighty"');
  });
});
