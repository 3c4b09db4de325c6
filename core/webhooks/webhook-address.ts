/**
 * Where a webhook may go. A webhook URL is chosen by a user and fetched by our
 * servers, so it must never reach our own network: loopback, private,
 * link-local (the cloud metadata endpoint), unique-local, multicast, and IPv4
 * addresses dressed as IPv6 are refused, both when the job is submitted and at
 * every send (the host is resolved again and the connection goes to the very
 * address that was checked, so a DNS answer cannot change in between).
 */
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { getConfig } from '../config';

export const WEBHOOK_URL_INVALID = 'The webhook URL must be an https URL without credentials, at most 2048 characters.';
export const WEBHOOK_URL_PRIVATE = 'The webhook URL must resolve to a public internet address; private, loopback and link-local addresses are refused.';
export const WEBHOOK_URL_UNRESOLVED = 'The webhook URL\'s host could not be resolved.';

export class WebhookAddressError extends Error {}

const refused = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) refused.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 96] /* IPv4-compatible (deprecated): [::127.0.0.1] is parsed as ::7f00:1 */, ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) refused.addSubnet(network, prefix, 'ipv6');

/** True for an address a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // IPv4-compatible and IPv4-mapped forms written in dotted notation are refused outright.
  if (family === 6 && address.includes('.')) return false;
  // IPv4-mapped (::ffff:a.b.c.d): not in the BlockList, which would then match every IPv4 address too.
  if (family === 6 && /^(0{0,4}:){0,5}:?ffff:/i.test(address) && !/^ffff:/i.test(address)) return false;
  return !refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Local only: the one origin on this machine that webhooks may reach over plain
 * http, so a developer (and the tests) can receive them without a tunnel.
 */
function localReceiver(url: URL): boolean {
  const allowed = getConfig().WEBHOOK_LOCAL_RECEIVER;
  return allowed !== undefined && new URL(allowed).origin === url.origin;
}

/** Parses a webhook URL and checks its form; throws WebhookAddressError with the user-facing text. */
export function parseWebhookUrl(value: string): { url: URL; local: boolean } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookAddressError(WEBHOOK_URL_INVALID);
  }
  const local = localReceiver(url);
  if (value.length > 2048 || url.username || url.password || (url.protocol !== 'https:' && !local)) throw new WebhookAddressError(WEBHOOK_URL_INVALID);
  return { url, local };
}

/** Every address the host resolves to must be public (one bad answer is enough to refuse). */
export async function resolvePublicAddresses(hostname: string): Promise<LookupAddress[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookupAll(host);
  if (addresses.length === 0) throw new WebhookAddressError(WEBHOOK_URL_UNRESOLVED);
  if (!addresses.every((a) => isPublicAddress(a.address))) throw new WebhookAddressError(WEBHOOK_URL_PRIVATE);
  return addresses;
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(new WebhookAddressError(WEBHOOK_URL_UNRESOLVED));
      else resolve(addresses);
    });
  });
}

/** Checks a webhook URL as a job is submitted. */
export async function checkWebhookUrl(value: string): Promise<URL> {
  const { url, local } = parseWebhookUrl(value);
  if (!local) await resolvePublicAddresses(url.hostname);
  return url;
}
