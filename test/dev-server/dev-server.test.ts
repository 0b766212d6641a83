import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { isServerAnswering } from '../../src/dev-server/dev-server';
import { freePort } from '../../src/dev-server/free-port';
import { temporalCliBuildOrigin } from '../../src/dev-server/go-install';
import { ensureTemporalCli } from '../../src/dev-server/provision';
import { registerSearchAttributes } from '../../src/clients/register-search-attributes';
import { SEARCH_ATTRIBUTES } from '../../src/common/search-attributes';
import { testServerAddress } from '../helpers/temporal';

const { IndexedValueType } = temporal.api.enums.v1;

describe('the dev server from global setup', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await Connection.connect({ address: testServerAddress() });
  });
  afterAll(() => connection.close());

  async function customAttributes(namespace = 'default') {
    const response = await connection.operatorService.listSearchAttributes({ namespace });
    return response.customAttributes ?? {};
  }

  test('has the project search attributes registered with their types', async () => {
    const registered = await customAttributes();
    for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
      expect(registered[name]).toBe(IndexedValueType[`INDEXED_VALUE_TYPE_${type}`]);
    }
  });

  test('registerSearchAttributes is a no-op when they already exist', async () => {
    await registerSearchAttributes(connection, 'default');
    await registerSearchAttributes(connection, 'default');
    expect(Object.keys(await customAttributes())).toEqual(expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)));
  });

  test('registerSearchAttributes adds them to a namespace that lacks them', async () => {
    const namespace = `search-attributes-${randomUUID()}`;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    expect(Object.keys(await customAttributes(namespace))).not.toContain('AgentId');
    await registerSearchAttributes(connection, namespace);
    expect(Object.keys(await customAttributes(namespace))).toEqual(
      expect.arrayContaining(Object.keys(SEARCH_ATTRIBUTES)),
    );
  });

  test('isServerAnswering is true for it and false, quickly, for a closed port', async () => {
    expect(await isServerAnswering(testServerAddress())).toBe(true);
    const started = Date.now();
    expect(await isServerAnswering(`127.0.0.1:${await freePort()}`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('ensureTemporalCli', () => {
  let directory: string;
  let workingCli: string;
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  beforeAll(async () => {
    workingCli = await ensureTemporalCli({ log });
    directory = await fs.mkdtemp(path.join(os.tmpdir(), 'provision-test-'));
  });
  afterAll(() => fs.rm(directory, { recursive: true, force: true }));
  beforeEach(() => lines.splice(0));

  async function makeDirectory(name: string, withCli: boolean): Promise<string> {
    const target = path.join(directory, name);
    await fs.mkdir(target, { recursive: true });
    if (withCli) await fs.symlink(workingCli, path.join(target, 'temporal'));
    return target;
  }

  async function bogusFile(): Promise<string> {
    const bogus = path.join(directory, 'not-temporal');
    await fs.writeFile(bogus, '#!/bin/sh\necho nope\n', { mode: 0o755 });
    return bogus;
  }

  test('falls through from a bogus TEMPORAL_CLI_PATH to the temporal on PATH', async () => {
    const bin = await makeDirectory('path-bin', true);
    const env = { ...process.env, TEMPORAL_CLI_PATH: await bogusFile(), PATH: bin, XDG_CACHE_HOME: directory };
    expect(await ensureTemporalCli({ env, log })).toBe(path.join(bin, 'temporal'));
    expect(lines.join('\n')).toMatch(/TEMPORAL_CLI_PATH: .*not-temporal does not work/);
  });

  test('falls through from a bogus TEMPORAL_CLI_PATH and an empty PATH to the cache', async () => {
    const cacheHome = path.join(directory, 'cache-home');
    const bin = await makeDirectory('cache-home/durable-scratchpad/bin', true);
    await fs.writeFile(path.join(bin, 'temporal.origin'), `${temporalCliBuildOrigin()}\n`);
    const env = {
      TEMPORAL_CLI_PATH: await bogusFile(),
      PATH: await makeDirectory('empty-bin', false),
      XDG_CACHE_HOME: cacheHome,
    };
    expect(await ensureTemporalCli({ env, log })).toBe(path.join(bin, 'temporal'));
  });

  test('makes a cached copy made another way again, and uses it as it is only when nothing newer can be had', async () => {
    const cacheHome = path.join(directory, 'stale-cache-home');
    const bin = await makeDirectory('stale-cache-home/durable-scratchpad/bin', true);
    const env = { PATH: await makeDirectory('empty-bin', false), XDG_CACHE_HOME: cacheHome };
    // No download and no Go: what would have replaced the copy is out of reach.
    const options = { env, log, downloadUrl: null, allowGoBuild: false };
    expect(await ensureTemporalCli(options)).toBe(path.join(bin, 'temporal'));
    expect(lines.join('\n')).toMatch(/cache: the copy at .* is of unknown origin[\s\S]*go build: disabled/);
    expect(lines.at(-2)).toMatch(/no newer copy could be had: using the one at .*temporal as it is/);
    lines.splice(0);
    await fs.writeFile(path.join(bin, 'temporal.origin'), 'build github.com/temporalio/cli/cmd/temporal@v1.5.1\n');
    expect(await ensureTemporalCli(options)).toBe(path.join(bin, 'temporal'));
    expect(lines.join('\n')).toMatch(
      /cache: the copy at .* is from build github.com\/temporalio\/cli\/cmd\/temporal@v1.5.1\n/,
    );
  });

  test('names every option when nothing works', async () => {
    const env = {
      TEMPORAL_CLI_PATH: path.join(directory, 'missing'),
      PATH: await makeDirectory('empty-bin', false),
      XDG_CACHE_HOME: path.join(directory, 'empty-cache'),
    };
    const downloadUrl = `http://127.0.0.1:${await freePort()}/temporal.tar.gz`;
    const failure = ensureTemporalCli({ env, log, downloadUrl });
    await expect(failure).rejects.toThrow(/on PATH[\s\S]*TEMPORAL_CLI_PATH[\s\S]*internet[\s\S]*Go >= 1\.25/);
    await expect(failure).rejects.toThrow(/download: fetch failed \(ECONNREFUSED\)/);
    await expect(failure).rejects.toThrow(/go build: no Go toolchain on PATH/);
  });
});
