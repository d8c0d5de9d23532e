import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import fastifyAccepts from '@fastify/accepts';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { type Artifact, artifact, serveArtifact } from '../http/artifacts.ts';
import { readOutbox } from '../mail/mailer.ts';
import type { PortalService } from '../portal/portal.service.ts';
import { registerAccountRoutes } from './account.routes.ts';
import { browserCookies, safeReturnPath } from './browser-session.ts';
import { PORTAL_PATH } from './layout.ts';
import { LANGUAGES, type Language } from './messages.ts';
import { createPageKit } from './page-kit.ts';
import { devMailPage, problemPage } from './pages/account.ts';
import { registerSignInRoutes } from './sign-in.routes.ts';

/** No inline script or style, nothing from elsewhere, never in a frame. */
export const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const FORM_BODY_LIMIT_BYTES = 4 * 1024;

export interface PortalPagesOptions {
  portal: PortalService;
  clock: Clock;
  /** Cookies with `__Host-` and `Secure`: whenever the service is reached over HTTPS. */
  secureCookies: boolean;
  /** The development outbox, listed at /dev/mail; only without SMTP, never in production. */
  outboxFolder?: string;
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

const asset = (name: string, type: string): Artifact =>
  artifact(readFileSync(new URL(`./assets/${name}`, import.meta.url)), type);

/**
 * The portal's web pages under /developer/portal: server-rendered, working without JavaScript,
 * calling the same portal service as the JSON API. Their cookies, form parsing and CSRF checks
 * stay inside this plugin: the JSON API never reads a cookie.
 */
export function portalPages(options: PortalPagesOptions): FastifyPluginAsync {
  return async (pages) => {
    const cookies = browserCookies(options.secureCookies, options.clock);
    const devMailPath = options.outboxFolder ? `${PORTAL_PATH}/dev/mail` : undefined;
    const kit = createPageKit({
      portal: options.portal,
      cookies,
      clock: options.clock,
      ...(devMailPath ? { devMailPath } : {}),
    });
    // Pages for people: they are not part of the API's OpenAPI document.
    pages.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await pages.register(fastifyCookie);
    await pages.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });
    await pages.register(fastifyAccepts);
    await pages.register(fastifyCsrf, {
      cookieKey: cookies.names.csrf,
      cookieOpts: cookies.base,
      getToken: (request: FastifyRequest) =>
        (request.body as { _csrf?: string } | undefined)?._csrf,
    });

    pages.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', PORTAL_CSP);
      reply.header('referrer-policy', 'no-referrer');
      reply.header('cache-control', 'no-store');
      reply.header('vary', 'Accept-Language, Cookie');
      // Plain HTTP is for development on this machine only: cookies there go without Secure.
      if (request.protocol !== 'https' && !isLoopback(request.socket.remoteAddress)) {
        const context = kit.context(request, reply, PORTAL_PATH);
        const t = context.t;
        return kit.send(reply, 403, problemPage(context, t.portalName, t.errors.https_required));
      }
    });
    pages.addHook('preHandler', (request, reply, done) => {
      if (request.method === 'POST') pages.csrfProtection(request, reply, done);
      else done();
    });

    pages.setErrorHandler(async (error: FastifyError, request, reply) => {
      const context = kit.context(request, reply, PORTAL_PATH);
      const { t } = context;
      if (error.code?.startsWith('FST_CSRF_')) {
        return kit.send(reply, 403, problemPage(context, t.portalName, t.errors.form_expired));
      }
      if (error instanceof ApiError) {
        // Refused before the page (HTTPS required, the store away, shutting down): in words.
        reply.headers(error.headers);
        const known = t.errors[error.code as keyof typeof t.errors];
        const message = typeof known === 'string' ? known : t.errors.generic;
        return kit.send(reply, error.status, problemPage(context, t.portalName, message));
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        // A body too large, of the wrong type, or not parseable: no form of ours sends one.
        const message = t.errors.form_expired;
        return kit.send(reply, error.statusCode, problemPage(context, t.portalName, message));
      }
      request.log.error({ err: error }, 'portal page failed');
      return kit.send(reply, 500, problemPage(context, t.portalName, t.errors.generic));
    });
    pages.setNotFoundHandler(async (request, reply) => {
      const context = kit.context(request, reply, PORTAL_PATH);
      return kit.send(
        reply,
        404,
        problemPage(context, context.t.portalName, context.t.errors.not_found),
      );
    });

    const assets = {
      css: asset('portal.css', 'text/css; charset=utf-8'),
      js: asset('portal.js', 'text/javascript; charset=utf-8'),
    };
    pages.get('/assets/portal.css', (request, reply) =>
      serveArtifact(request, reply, assets.css, 'public, max-age=300'),
    );
    pages.get('/assets/portal.js', (request, reply) =>
      serveArtifact(request, reply, assets.js, 'public, max-age=300'),
    );

    pages.get('/language', async (request, reply) => {
      const query = request.query as { to?: string; back?: string };
      if (LANGUAGES.includes(query.to as Language)) cookies.setLanguage(reply, query.to as string);
      return reply.redirect(safeReturnPath(query.back), 303);
    });

    const outbox = options.outboxFolder;
    if (outbox) {
      pages.get('/dev/mail', async (request, reply) => {
        const context = kit.context(request, reply, `${PORTAL_PATH}/dev/mail`);
        if (!isLoopback(request.socket.remoteAddress)) {
          return kit.send(
            reply,
            404,
            problemPage(context, context.t.portalName, context.t.errors.not_found),
          );
        }
        return kit.send(reply, 200, devMailPage(context, readOutbox(outbox)));
      });
    }

    registerSignInRoutes(pages, kit);
    registerAccountRoutes(pages, kit);
  };
}
