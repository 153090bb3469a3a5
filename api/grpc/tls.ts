import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import type { ApiTlsFiles } from '../../core/transport-settings';

// TLS for the API's ports (the seed lists it as optional): a certificate and key, and optionally a
// client CA, which makes every port require a client certificate it signed (mutual TLS).

export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  clientCa?: Buffer;
}

export function readTlsMaterial(files: ApiTlsFiles): TlsMaterial {
  return {
    cert: readFileSync(files.certFile),
    key: readFileSync(files.keyFile),
    ...(files.clientCaFile ? { clientCa: readFileSync(files.clientCaFile) } : {}),
  };
}

/** The credentials a gRPC port listens with: TLS (and mTLS with a client CA) when configured, else plaintext. */
export function serverCredentials(tls: TlsMaterial | undefined): grpc.ServerCredentials {
  if (!tls) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(tls.clientCa ?? null, [{ cert_chain: tls.cert, private_key: tls.key }], Boolean(tls.clientCa));
}

/** The REST gateway's HTTPS options for the same material. */
export function httpsOptions(tls: TlsMaterial): { cert: Buffer; key: Buffer; ca?: Buffer; requestCert: boolean; rejectUnauthorized: boolean } {
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.clientCa ? { ca: tls.clientCa } : {}),
    requestCert: Boolean(tls.clientCa),
    rejectUnauthorized: Boolean(tls.clientCa),
  };
}
