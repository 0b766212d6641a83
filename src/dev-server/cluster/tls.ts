import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { Log } from './provision';

export interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

/**
 * A CA and a frontend certificate it signs for `localhost` and 127.0.0.1, made once with `openssl`. Clients trust
 * the CA (`TEMPORAL_TLS_SERVER_CA_CERT_PATH`), as they would a private CA in production.
 */
export async function ensureTlsFiles(directory: string, log: Log): Promise<TlsFiles> {
  const files: TlsFiles = {
    ca: path.join(directory, 'ca.pem'),
    cert: path.join(directory, 'frontend.pem'),
    key: path.join(directory, 'frontend-key.pem'),
  };
  if (Object.values(files).every((file) => fs.existsSync(file))) return files;
  log(`generating a CA and a frontend certificate with openssl in ${directory}`);
  fs.mkdirSync(directory, { recursive: true });
  const run = (args: string[]) => promisify(execFile)('openssl', args, { cwd: directory, timeout: 60_000 });
  const caKey = path.join(directory, 'ca-key.pem');
  const csr = path.join(directory, 'frontend.csr');
  const extensions = path.join(directory, 'frontend.ext');
  await run(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '3650', '-subj', '/CN=scratchpad cluster CA'].concat([
      '-keyout',
      caKey,
      '-out',
      files.ca,
    ]),
  );
  await run(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', files.key, '-out', csr]);
  fs.writeFileSync(extensions, 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  await run(
    ['x509', '-req', '-in', csr, '-CA', files.ca, '-CAkey', caKey, '-CAcreateserial', '-days', '3650'].concat([
      '-extfile',
      extensions,
      '-out',
      files.cert,
    ]),
  );
  return files;
}
