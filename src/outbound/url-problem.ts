import { isIP } from 'node:net';
import { refusedAddress } from './address-guard.ts';

/**
 * Why a holder's URL (a notification endpoint, a bucket's endpoint) may not be reached, or
 * undefined when it may, judged before any lookup (see address-guard.ts for what follows).
 */
export function urlProblem(text: string, allowPrivateNetworks: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return allowPrivateNetworks
      ? 'must start with https:// or http://'
      : 'must start with https://';
  }
  if (url.username || url.password) return 'must not hold a user name or password';
  if (url.hash) return 'must not have a #fragment';
  if (text.length > 2_000) return 'must be at most 2,000 characters';
  const host = hostOf(url);
  if (allowPrivateNetworks) return undefined;
  if (isIP(host)) {
    const refused = refusedAddress(host);
    if (refused) return `names ${refused}`;
  }
  // RFC 6761: localhost and every name under it are this machine, whatever a resolver says.
  // (The URL parser has already mapped look-alikes such as full-width letters to these.)
  const name = host.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return `names ${host}, this machine`;
  return undefined;
}

/** A URL's host, without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
