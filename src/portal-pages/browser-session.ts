import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { PortalService, SessionPrincipal } from '../portal/portal.service.ts';
import { DEVICE_TTL_MS } from '../portal/trusted-devices.ts';
import { PORTAL_PATH } from './layout.ts';

const NAMES = {
  session: 'hadir_session',
  device: 'hadir_device',
  csrf: 'hadir_csrf',
  language: 'hadir_language',
} as const;
type CookieName = keyof typeof NAMES;

/**
 * The browser's side of a portal session: the same session the API's bearer tokens use, held in
 * an HttpOnly cookie. Whenever the request came over HTTPS (to this server, or to a trusted proxy
 * that says so), every cookie carries the `__Host-` prefix and `Secure`; a request over plain
 * HTTP (development, answered for loopback clients only) gets neither, since a browser keeps
 * neither over HTTP.
 */
export function browserCookies(clock: Clock) {
  const isHttps = (request: FastifyRequest) => request.protocol === 'https';
  const nameOf = (request: FastifyRequest, cookie: CookieName) =>
    `${isHttps(request) ? '__Host-' : ''}${NAMES[cookie]}`;
  const optionsOf = (request: FastifyRequest) => ({
    path: '/',
    httpOnly: true,
    secure: isHttps(request),
    sameSite: 'lax' as const,
  });
  const read = (request: FastifyRequest, cookie: CookieName): string | undefined =>
    request.cookies?.[nameOf(request, cookie)];
  const write = (
    request: FastifyRequest,
    reply: FastifyReply,
    cookie: CookieName,
    value: string,
    maxAgeSeconds?: number,
  ) =>
    reply.setCookie(nameOf(request, cookie), value, {
      ...optionsOf(request),
      ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
    });

  return {
    nameOf,

    setSession(
      request: FastifyRequest,
      reply: FastifyReply,
      session: { token: string; expiresAt: string },
    ): void {
      const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - clock.now()) / 1000));
      write(request, reply, 'session', session.token, maxAge);
    },

    sessionToken: (request: FastifyRequest) => read(request, 'session'),

    clearSession(request: FastifyRequest, reply: FastifyReply): void {
      reply.clearCookie(nameOf(request, 'session'), optionsOf(request));
    },

    /** A trusted device's token, kept by the browser for the device's 30 days. */
    setDevice(request: FastifyRequest, reply: FastifyReply, token: string): void {
      write(request, reply, 'device', token, Math.floor(DEVICE_TTL_MS / 1000));
    },

    deviceToken: (request: FastifyRequest) => read(request, 'device'),

    setLanguage(request: FastifyRequest, reply: FastifyReply, language: string): void {
      write(request, reply, 'language', language, 365 * 24 * 3600);
    },

    language: (request: FastifyRequest) => read(request, 'language'),

    /** The browser's CSRF secret (see csrf.ts): kept for the browser's session, never shown. */
    csrfSecret: (request: FastifyRequest) => read(request, 'csrf'),

    setCsrfSecret(request: FastifyRequest, reply: FastifyReply, secret: string): void {
      write(request, reply, 'csrf', secret);
    },

    /** The holder behind the request's session cookie, or none when it is missing or has ended. */
    async holder(
      request: FastifyRequest,
      portal: PortalService,
    ): Promise<SessionPrincipal | undefined> {
      const token = read(request, 'session');
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

/**
 * A return address the language switch may send the browser to: a portal page, in printable
 * ASCII (as our own links are), nothing else.
 */
export function safeReturnPath(path: string | undefined): string {
  if (
    path &&
    /^[\x21-\x7e]+$/.test(path) &&
    (path === PORTAL_PATH || path.startsWith(`${PORTAL_PATH}/`)) &&
    !/\\|\/\//.test(path)
  ) {
    return path;
  }
  return PORTAL_PATH;
}
