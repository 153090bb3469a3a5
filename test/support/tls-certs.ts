import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// A throwaway PKI for TLS tests, made with the openssl CLI: a CA, a server certificate for
// 127.0.0.1 and localhost, and a client certificate, each with its key, as files and contents.

export interface TestCertificates {
  dir: string;
  files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
  read(file: keyof TestCertificates['files']): Buffer;
}

const openssl = (dir: string, ...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

function signed(dir: string, name: string, subject: string, extensions: string): void {
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  writeFileSync(path.join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    `${name}.crt`,
    '-extfile',
    `${name}.ext`,
  );
}

export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'weft-tls-'));
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=weft test CA');
  signed(dir, 'server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed(dir, 'client', '/CN=weft test client', 'extendedKeyUsage=clientAuth\n');
  const files = {
    ca: path.join(dir, 'ca.crt'),
    serverCert: path.join(dir, 'server.crt'),
    serverKey: path.join(dir, 'server.key'),
    clientCert: path.join(dir, 'client.crt'),
    clientKey: path.join(dir, 'client.key'),
  };
  return { dir, files, read: (file) => readFileSync(files[file]) };
}
