import { lookup as dnsLookup } from 'node:dns';
import { lookup as resolveAll } from 'node:dns/promises';
import type { LookupAddress, LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ToolError } from '../tool';

// Where tools may send requests (MCP_ALLOWED_DOMAINS, OPENAPI_ALLOWED_DOMAINS, ...): a host must be
// listed ("api.example.com", "*.example.com", or "*" for any public host). Private, loopback,
// link-local and other non-public addresses are refused unless the host itself is listed by name
// or address, and the check runs on the address each connection actually uses, so neither a
// redirect nor a DNS answer can lead a request inside.

export interface DestinationPolicy {
  /** The setting the list came from, named in refusals. */
  readonly setting: string;
  /** Refuses a URL whose scheme or host is not allowed. */
  checkUrl(url: URL): void;
  /** A DNS lookup for connections that refuses addresses the host may not reach. */
  lookup: typeof dnsLookup;
  /**
   * Checks a URL ahead of any request (a tool source being registered): checkUrl, and every address
   * its host resolves to now. A host that does not resolve yet passes; each connection is checked again.
   */
  checkDestination(url: URL): Promise<void>;
}

/** Entries of a comma-separated allowlist, lower case, without blanks. */
export function parseAllowlist(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

const bareHost = (hostname: string) => hostname.toLowerCase().replace(/^\[|\]$/g, '');

function isPublic(address: string): boolean {
  return ipaddr.process(address).range() === 'unicast';
}

export function createDestinationPolicy(setting: string, entries: readonly string[]): DestinationPolicy {
  const exact = new Set(entries.filter((e) => e !== '*' && !e.startsWith('*.')));
  const suffixes = entries.filter((e) => e.startsWith('*.')).map((e) => e.slice(1));
  const anyHost = entries.includes('*');
  /** Listed by name or address: may reach a non-public address. */
  const listedExactly = (host: string) => exact.has(host);
  const allowed = (host: string) => anyHost || listedExactly(host) || suffixes.some((suffix) => host.endsWith(suffix));

  const refuse = (message: string) => new ToolError('validation', `${message} (${setting})`);

  const checkAddress = (host: string, address: string) => {
    if (!isPublic(address) && !listedExactly(host) && !listedExactly(address)) {
      throw refuse(`${host} resolves to ${address}, a non-public address, which is refused unless listed`);
    }
  };

  const checkUrl = (url: URL) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`only http and https URLs are allowed, not ${url.protocol}`);
    if (url.username || url.password) throw refuse('URLs with credentials are not allowed');
    const host = bareHost(url.hostname);
    if (!allowed(host)) throw refuse(`host ${host} is not in the allowlist`);
    if (isIP(host)) checkAddress(host, host);
  };

  return {
    setting,
    checkUrl,
    async checkDestination(url) {
      checkUrl(url);
      const host = bareHost(url.hostname);
      const addresses = await resolveAll(host, { all: true }).catch(() => []);
      for (const { address } of addresses) checkAddress(host, address);
    },
    lookup: ((hostname: string, options: LookupOneOptions, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
      const host = bareHost(hostname);
      dnsLookup(host, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        try {
          for (const { address } of addresses) checkAddress(host, address);
        } catch (refusal) {
          return callback(refusal as Error, '', 0);
        }
        if ((options as { all?: boolean }).all) return callback(null, addresses);
        const first = addresses[0]!;
        return callback(null, first.address, first.family);
      });
    }) as typeof dnsLookup,
  };
}
