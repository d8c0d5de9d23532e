import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import fastifyAccepts from '@fastify/accepts';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { ClientPackage } from '../client-packages/client-packages.ts';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import type { GuestLists } from '../guest-list/guest-list.ts';
import { type Artifact, artifact, serveArtifact } from '../http/artifacts.ts';
import { readOutbox } from '../mail/mailer.ts';
import type { PortalService } from '../portal/portal.service.ts';
import { registerAccountRoutes } from './account.routes.ts';
import { browserCookies, safeReturnPath } from './browser-session.ts';
import { createCsrf } from './csrf.ts';
import { type FormProblem, formProblem } from './form-input.ts';
import { registerGuestListRoutes } from './guest-list.routes.ts';
import { PORTAL_PATH } from './layout.ts';
import { LANGUAGES, type Language } from './messages.ts';
import { createPageKit } from './page-kit.ts';
import { devMailPage, notFoundPage, problemPage } from './pages/account.ts';
import { registerSignInRoutes } from './sign-in.routes.ts';

/** No inline script or style, nothing from elsewhere, never in a frame. */
export const PORTAL_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/** No camera, microphone, location, payment or the like: the portal uses none of them. */
export const PORTAL_PERMISSIONS_POLICY =
  'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()';
const FORM_BODY_LIMIT_BYTES = 4 * 1024;

export interface PortalPagesOptions {
  portal: PortalService;
  clock: Clock;
  /** Where holders reach the service: the get-started page and the CSRF origin check use it. */
  publicUrl: () => string;
  /** The installable tarballs the get-started page offers. */
  clientPackages: ClientPackage[];
  /** The key pages' guest-list files. */
  guestLists: GuestLists;
  /** A session's absolute lifetime: no form token outlives it. */
  sessionAbsoluteMs: number;
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
    const cookies = browserCookies(options.clock);
    const csrf = createCsrf({
      cookies,
      validityMs: options.sessionAbsoluteMs,
      publicUrl: options.publicUrl,
    });
    const devMailPath = options.outboxFolder ? `${PORTAL_PATH}/dev/mail` : undefined;
    const kit = createPageKit({
      portal: options.portal,
      cookies,
      csrf,
      clock: options.clock,
      publicUrl: options.publicUrl,
      ...(devMailPath ? { devMailPath } : {}),
    });
    // Pages for people: they are not part of the API's OpenAPI document.
    pages.addHook('onRoute', (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await pages.register(fastifyCookie);
    // The pages send forms, url-encoded, and nothing else: JSON belongs to /developer/auth.
    pages.removeAllContentTypeParsers();
    await pages.register(fastifyFormbody, { bodyLimit: FORM_BODY_LIMIT_BYTES });
    await pages.register(fastifyAccepts);

    pages.addHook('onRequest', async (request, reply) => {
      reply.header('content-security-policy', PORTAL_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('permissions-policy', PORTAL_PERMISSIONS_POLICY);
      reply.header('cross-origin-opener-policy', 'same-origin');
      // The path never leaves the site; a same-site form post still names its Origin.
      reply.header('referrer-policy', 'same-origin');
      reply.header('cache-control', 'no-store');
      reply.header('vary', 'Accept-Language, Cookie');
      // Plain HTTP is for development on this machine only: cookies there go without Secure. The
      // client's address is the proxy's word for it when a proxy is trusted (request.ip).
      if (request.protocol !== 'https' && !isLoopback(request.ip)) {
        const context = kit.context(request, reply, PORTAL_PATH);
        const t = context.t;
        return kit.send(reply, 403, problemPage(context, t.portalName, t.errors.https_required));
      }
    });
    // Every field of a form, a query and a path, before any route reads it: one value each, no
    // control characters. A route can then take what it reads as plain text.
    pages.addHook('preValidation', async (request, reply) => {
      const problem = formProblem(request);
      if (problem === undefined) return;
      const context = kit.context(request, reply, PORTAL_PATH);
      return kit.send(
        reply,
        400,
        problemPage(context, context.t.errors.badFormTitle, context.t.errors.bad_form(problem)),
      );
    });
    pages.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' || csrf.verify(request)) return;
      const context = kit.context(request, reply, PORTAL_PATH);
      return kit.send(
        reply,
        403,
        problemPage(context, context.t.portalName, context.t.errors.form_expired),
      );
    });

    pages.setErrorHandler(async (error: FastifyError, request, reply) => {
      const context = kit.context(request, reply, PORTAL_PATH);
      const { t } = context;
      if (error instanceof ApiError) {
        // Refused before the page (HTTPS required, the store away, shutting down): in words.
        reply.headers(error.headers);
        const known = t.errors[error.code as keyof typeof t.errors];
        const message = typeof known === 'string' ? known : t.errors.generic;
        return kit.send(reply, error.status, problemPage(context, t.portalName, message));
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        // A body too large, of the wrong type, or not parseable: no form of ours sends one.
        const problem: FormProblem = {
          kind:
            error.statusCode === 413
              ? 'too_large'
              : error.statusCode === 415
                ? 'type'
                : 'unreadable',
        };
        return kit.send(
          reply,
          error.statusCode,
          problemPage(context, t.errors.badFormTitle, t.errors.bad_form(problem)),
        );
      }
      request.log.error({ err: error }, 'portal page failed');
      return kit.send(reply, 500, problemPage(context, t.portalName, t.errors.generic));
    });
    pages.setNotFoundHandler(async (request, reply) => {
      const holder = await cookies.holder(request, options.portal).catch(() => undefined);
      return kit.send(reply, 404, notFoundPage(kit.context(request, reply, PORTAL_PATH, holder)));
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
      if (LANGUAGES.includes(query.to as Language)) {
        cookies.setLanguage(request, reply, query.to as string);
      }
      return reply.redirect(safeReturnPath(query.back), 303);
    });

    const outbox = options.outboxFolder;
    if (outbox) {
      pages.get('/dev/mail', async (request, reply) => {
        const context = kit.context(request, reply, `${PORTAL_PATH}/dev/mail`);
        if (!isLoopback(request.socket.remoteAddress)) {
          return kit.send(reply, 404, notFoundPage(context));
        }
        return kit.send(reply, 200, devMailPage(context, readOutbox(outbox)));
      });
    }

    registerSignInRoutes(pages, kit);
    registerAccountRoutes(pages, kit, options.clientPackages);
    registerGuestListRoutes(pages, kit, options.guestLists);
  };
}
