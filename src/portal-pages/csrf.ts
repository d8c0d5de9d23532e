import csrfTokens from '@fastify/csrf';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sha256Hex } from '../secret-hash.ts';
import type { BrowserCookies } from './browser-session.ts';

/**
 * Cross-site request forgery, refused twice over. First line: every state-changing form carries
 * a token made from a secret in the browser's own cookie and bound to its session (before
 * sign-in, to that cookie alone), so a token dies with the session it was shown in. Second line:
 * the request's Origin (or Referer) must be this site.
 */
export function createCsrf(options: {
  cookies: BrowserCookies;
  /** How long a token lives at most: a session's absolute lifetime. */
  validityMs: number;
  /** The configured public address, a site besides the one the request names. */
  publicUrl: () => string;
}) {
  const { cookies } = options;
  const tokens = new csrfTokens.Tokens({ userInfo: true, validity: options.validityMs });
  // The session a token belongs to: a hash of the session cookie, so no lookup is needed and a
  // new session (after sign-in, or a changed password) makes every earlier token void.
  const bindingOf = (request: FastifyRequest) => {
    const session = cookies.sessionToken(request);
    return session === undefined ? 'signed-out' : sha256Hex(session);
  };

  function isSameSite(request: FastifyRequest): boolean {
    const sites = new Set([new URL(options.publicUrl()).origin, originOf(request)]);
    const origin = request.headers.origin;
    if (origin !== undefined) return sites.has(origin);
    const referer = request.headers.referer;
    if (referer === undefined) return true;
    try {
      return sites.has(new URL(referer).origin);
    } catch {
      return false;
    }
  }

  return {
    /** The token for this page's forms; the browser gets its secret cookie on its first page. */
    token(request: FastifyRequest, reply: FastifyReply): string {
      let secret = cookies.csrfSecret(request);
      if (secret === undefined) {
        secret = tokens.secretSync();
        cookies.setCsrfSecret(request, reply, secret);
      }
      return tokens.create(secret, bindingOf(request));
    },

    /** Whether a state-changing request comes from a form this site served to this session. */
    verify(request: FastifyRequest): boolean {
      const secret = cookies.csrfSecret(request);
      const token = (request.body as { _csrf?: unknown } | undefined)?._csrf;
      return (
        secret !== undefined &&
        typeof token === 'string' &&
        tokens.verify(secret, token, bindingOf(request)) &&
        isSameSite(request)
      );
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;

/** The site a request was sent to, as a browser names it in Origin (no default port). */
function originOf(request: FastifyRequest): string {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return 'null';
  }
}
