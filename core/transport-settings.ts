import { loadClientConnectConfig, type ClientConnectConfig } from '@temporalio/envconfig';

// How Weft's processes secure their connections, from settings core/config.ts has read: to
// Temporal through the SDK's own environment configuration, and the API's TLS files.

/** Connection options of the Temporal SDK (address, TLS, API key, metadata). */
export type TemporalConnection = ClientConnectConfig['connectionOptions'];

/**
 * How the API, the worker and the CLI connect to Temporal: the SDK's environment configuration
 * (TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH / _KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH,
 * TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY, TEMPORAL_GRPC_META_*, or a TEMPORAL_PROFILE of a
 * TEMPORAL_CONFIG_FILE), for Temporal Cloud or any cluster with TLS, mTLS or API keys.
 */
export function temporalConnectionOf(env: NodeJS.ProcessEnv, address: string): TemporalConnection {
  const given = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const { connectionOptions } = loadClientConnectConfig({ overrideEnvVars: { ...given, TEMPORAL_ADDRESS: address } });
  return { ...connectionOptions, address };
}

export interface ApiTlsFiles {
  certFile: string;
  keyFile: string;
  /** Client certificates must be signed by this CA (mTLS). */
  clientCaFile?: string;
}

/** The API's TLS files: a certificate and its key together, and a client CA only with them. */
export function apiTlsOf(files: Partial<ApiTlsFiles>): ApiTlsFiles | undefined {
  const { certFile, keyFile, clientCaFile } = files;
  if (!certFile && !keyFile && !clientCaFile) return undefined;
  if (!certFile || !keyFile)
    throw new Error('invalid configuration: WEFT_TLS_CERT_FILE and WEFT_TLS_KEY_FILE are set together (WEFT_TLS_CLIENT_CA_FILE needs both)');
  return { certFile, keyFile, ...(clientCaFile ? { clientCaFile } : {}) };
}
