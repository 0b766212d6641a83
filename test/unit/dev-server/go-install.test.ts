import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  TEMPORAL_CLI_BUILD,
  TEMPORAL_CLI_MODULE,
  temporalCliBuildModule,
  temporalCliBuildOrigin,
} from '../../../src/dev-server/go-install';

/** `module version` of each requirement in go.mod's text. */
function requirements(goMod: string): Map<string, string> {
  return new Map([...goMod.matchAll(/^\s*(?:require\s+)?(\S+)\s+(v\S+)/gm)].map((m) => [m[1]!, m[2]!]));
}

describe('the Temporal CLI build module', () => {
  const goMod = fs.readFileSync(path.join(temporalCliBuildModule(), 'go.mod'), 'utf8');

  it('pins the CLI release and the SQLite driver the build names', () => {
    const pinned = requirements(goMod);
    const [module, version] = TEMPORAL_CLI_MODULE.split('@') as [string, string];
    expect(pinned.get(module.replace(/\/cmd\/temporal$/, ''))).toBe(version);
    expect(TEMPORAL_CLI_BUILD).toContain(`modernc.org/sqlite ${pinned.get('modernc.org/sqlite')}`);
    // v1.40.1 is the first release that closes a cancelled query's cursor (see TEMPORAL_CLI_BUILD).
    const [major, minor, patch] = pinned.get('modernc.org/sqlite')!.slice(1).split('.').map(Number);
    expect(major! * 1e6 + minor! * 1e3 + patch!).toBeGreaterThanOrEqual(1_040_001);
  });

  it('names, in the origin a cached build is kept with, a digest of the pins', () => {
    expect(temporalCliBuildOrigin()).toMatch(new RegExp(`^build ${TEMPORAL_CLI_BUILD} \\([0-9a-f]{12}\\)$`));
    expect(temporalCliBuildOrigin()).toBe(temporalCliBuildOrigin());
  });
});
