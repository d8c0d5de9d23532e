import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { PortalService, SessionPrincipal } from '../portal/portal.service.ts';
import { DEVICE_TTL_MS } from '../portal/trusted-devices.ts';
import { PORTAL_PATH } from './layout.ts';

/**
 * The browser's side of a portal session: the same session the API's bearer tokens use, held in
 * an HttpOnly cookie. Over HTTPS the cookies carry the `__Host-` prefix and `Secure`; a server on
 * plain HTTP (development, answering loopback only) drops both, since a browser keeps neither
 * over HTTP.
 */
export function browserCookies(secure: boolean, clock: Clock) {
  const prefix = secure ? '__Host-' : '';
  const names = {
    session: `${prefix}hadir_session`,
    device: `${prefix}hadir_device`,
    csrf: `${prefix}hadir_csrf`,
    language: `${prefix}hadir_language`,
  };
  const base = { path: '/', httpOnly: true, secure, sameSite: 'lax' as const };

  return {
    names,
    /** What every cookie of the portal is set with (the CSRF plugin's too). */
    base,

    setSession(reply: FastifyReply, session: { token: string; expiresAt: string }): void {
      const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - clock.now()) / 1000));
      reply.setCookie(names.session, session.token, { ...base, maxAge });
    },

    clearSession(reply: FastifyReply): void {
      reply.clearCookie(names.session, base);
    },

    /** A trusted device's token, kept by the browser for the device's 30 days. */
    setDevice(reply: FastifyReply, token: string): void {
      reply.setCookie(names.device, token, { ...base, maxAge: Math.floor(DEVICE_TTL_MS / 1000) });
    },

    deviceToken(request: FastifyRequest): string | undefined {
      return request.cookies[names.device];
    },

    setLanguage(reply: FastifyReply, language: string): void {
      reply.setCookie(names.language, language, { ...base, maxAge: 365 * 24 * 3600 });
    },

    language(request: FastifyRequest): string | undefined {
      return request.cookies?.[names.language];
    },

    /** The holder behind the request's session cookie, or none when it is missing or has ended. */
    async holder(
      request: FastifyRequest,
      portal: PortalService,
    ): Promise<SessionPrincipal | undefined> {
      const token = request.cookies[names.session];
      if (token === undefined) return undefined;
      try {
        return await portal.authenticateSession(token);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'unauthorized') return undefined;
        throw error;
      }
    },
  };
}

export type BrowserCookies = ReturnType<typeof browserCookies>;

/** A return address the language switch may send the browser to: a portal page, nothing else. */
export function safeReturnPath(path: string | undefined): string {
  if (
    path &&
    (path === PORTAL_PATH || path.startsWith(`${PORTAL_PATH}/`)) &&
    !/[\\\s]|\/\//.test(path)
  ) {
    return path;
  }
  return PORTAL_PATH;
}
