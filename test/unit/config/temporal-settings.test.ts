import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-settings-'));
const toml = path.join(directory, 'temporal.toml');
const ca = path.join(directory, 'ca.pem');
fs.writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
fs.writeFileSync(
  toml,
  [
    '[profile.default]',
    'address = "default.example:7233"',
    '[profile.prod]',
    'address = "prod.example:7233"',
    'namespace = "prod-ns"',
    'api_key = "profile-key"',
    '[profile.private]',
    'address = "private.example:7233"',
    '[profile.private.tls]',
    `server_ca_cert_path = "${ca}"`,
    'server_name = "frontend.private"',
  ].join('\n'),
);

const base = { HOME: directory, XDG_CONFIG_HOME: directory, SCRATCHPAD_HOME: directory };

describe('Temporal connection settings (envconfig, as the Temporal CLI reads them)', () => {
  it('defaults to localhost:7233, namespace default, no TLS, when nothing is configured', () => {
    const config = loadConfig(base);
    expect(config.temporal).toMatchObject({ address: 'localhost:7233' });
    expect(config.temporal.tls).toBeUndefined();
    expect(config.TEMPORAL_NAMESPACE).toBe('default');
  });

  it('reads the default profile of TEMPORAL_CONFIG_FILE and lets variables override it', () => {
    expect(loadConfig({ ...base, TEMPORAL_CONFIG_FILE: toml }).TEMPORAL_ADDRESS).toBe('default.example:7233');
    const overridden = loadConfig({
      ...base,
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_ADDRESS: 'other:7000',
      TEMPORAL_NAMESPACE: '',
    });
    expect(overridden.temporal.address).toBe('other:7000');
    expect(overridden.TEMPORAL_ADDRESS).toBe('other:7000');
    expect(overridden.TEMPORAL_NAMESPACE).toBe('default');
  });

  it('selects TEMPORAL_PROFILE; an API key turns TLS on', () => {
    const config = loadConfig({ ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' });
    expect(config.TEMPORAL_NAMESPACE).toBe('prod-ns');
    expect(config.temporal).toMatchObject({ address: 'prod.example:7233', apiKey: 'profile-key', tls: true });
  });

  it('loads the server CA and server name from a profile, and from TEMPORAL_TLS_* variables', () => {
    const fromProfile = loadConfig({ ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'private' }).temporal;
    expect(fromProfile.tls).toMatchObject({ serverNameOverride: 'frontend.private' });
    expect(
      Buffer.from((fromProfile.tls as { serverRootCACertificate: Uint8Array }).serverRootCACertificate).toString(),
    ).toContain('not checked');
    const fromEnv = loadConfig({ ...base, TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca, TEMPORAL_ADDRESS: 'h:1' }).temporal;
    expect(fromEnv.tls).toHaveProperty('serverRootCACertificate');
  });

  it('refuses a profile that does not exist and an address that is not host:port, naming them', () => {
    expect(() => loadConfig({ ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'nope' })).toThrow(/nope/);
    fs.writeFileSync(path.join(directory, 'bad.toml'), '[profile.default]\naddress = "no port"\n');
    expect(() => loadConfig({ ...base, TEMPORAL_CONFIG_FILE: path.join(directory, 'bad.toml') })).toThrow(/no port/);
  });
});
