import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClientPackage } from '../client-packages/client-packages.ts';
import { ApiError } from '../errors.ts';
import { readsData } from '../portal/guest-list-overview.ts';
import { EndpointUrlError } from '../portal/holder-webhooks.ts';
import type { KeyOverview } from '../portal/key-overview.ts';
import { clientOf } from '../portal/portal.routes.ts';
import type { SessionPrincipal } from '../portal/portal.service.ts';
import { isSteppedUp } from '../portal/step-up.ts';
import { HOUR_MS } from '../time-units.ts';
import { registerExportRoutes } from './export.routes.ts';
import { codeOf, formOf, isNewPasswordRefusal, newPasswordOf } from './form-input.ts';
import { html } from './html.ts';
import { PORTAL_PATH } from './layout.ts';
import { pageErrorOf } from './page-errors.ts';
import type { PageKit } from './page-kit.ts';
import { devicesPage, notFoundPage, passwordPage, startPage } from './pages/account.ts';
import { type ExportsState, exportsSection } from './pages/exports.ts';
import {
  type KeyAction,
  keyPage,
  keyPath,
  keysPage,
  ROTATION_OVERLAPS,
  revealedPage,
  rotateConfirmPage,
  rotatedPage,
  stepUpPage,
} from './pages/keys.ts';
import { type NotificationsState, webhooksSection } from './pages/webhooks.ts';
import { registerWebhookRoutes } from './webhook.routes.ts';

const KEYS_PATH = `${PORTAL_PATH}/keys`;
/** The notification changes a key page may report after its redirect (?done=…). */
const DONE_NEWS = ['tested', 'turnedOff', 'turnedOn', 'removed'] as const;

/** The signed-in holder's pages: keys (reveal, rotate, usage), devices, password, get started. */
export function registerAccountRoutes(
  pages: FastifyInstance,
  kit: PageKit,
  clientPackages: ClientPackage[],
): void {
  const { portal, cookies } = kit;

  pages.get('/keys', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const context = kit.context(request, reply, KEYS_PATH, principal);
    const keys = await portal.keyOverview(principal);
    return kit.send(reply, 200, keysPage(context, keys, kit.clock.now()));
  });

  /** The holder's key of this id, or undefined once a 404 page was sent. */
  async function keyOf(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
  ): Promise<KeyOverview | undefined> {
    const keyId = (request.params as { id: string }).id;
    const key = (await portal.keyOverview(principal)).find((candidate) => candidate.id === keyId);
    if (!key) {
      kit.send(reply, 404, notFoundPage(kit.context(request, reply, KEYS_PATH, principal)));
    }
    return key;
  }

  const showKey = async (
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
    error?: unknown,
    notifications: NotificationsState = {},
    deliveries: ExportsState = {},
  ) => {
    const key = await keyOf(request, reply, principal);
    if (!key) return reply;
    const context = kit.context(request, reply, keyPath(key.id), principal);
    const now = kit.clock.now();
    const [endpoints, exports] = await Promise.all([
      portal.webhooks.list(principal, key.id),
      portal.exports.list(principal, key.id),
    ]);
    // A refused URL is said at its field, with what was typed.
    const urlRefused = error instanceof EndpointUrlError;
    const section = html`${webhooksSection(context, keyPath(key.id), endpoints, {
      ...notifications,
      ...(urlRefused ? { error: context.t.webhooks.urlRefused } : {}),
    })}
${exportsSection(context, keyPath(key.id), exports, {
  readsData: readsData(key),
  steppedUp: isSteppedUp(principal, now),
  state: deliveries,
})}`;
    if (error === undefined) {
      return kit.send(reply, 200, keyPage(context, key, now, {}, section));
    }
    const top = urlRefused ? {} : { error: pageErrorOf(error, context.t) };
    return kit.refuse(reply, error, keyPage(context, key, now, top, section));
  };

  pages.get('/keys/:id', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const done = (request.query as Record<string, string>).done;
    const notifications = DONE_NEWS.includes(done as never)
      ? { done: done as NonNullable<NotificationsState['done']> }
      : {};
    const deliveries: ExportsState =
      done === 'export-added'
        ? { done: 'added' }
        : done === 'export-removed'
          ? { done: 'removed' }
          : {};
    return showKey(request, reply, principal, undefined, notifications, deliveries);
  });

  /**
   * A sensitive action with its step-up in place: without a fresh step-up a code is mailed and its
   * form shown; the form comes back here with the code, and the action goes through.
   */
  async function withStepUp(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
    action: KeyAction,
    perform: (principal: SessionPrincipal) => Promise<FastifyReply>,
  ) {
    // A code is mailed only for one of the holder's keys that the action can be taken on.
    const key = await keyOf(request, reply, principal);
    if (!key) return reply;
    if (action.kind === 'reveal' && !key.revealable) {
      return showKey(
        request,
        reply,
        principal,
        new ApiError('not_revealable', `key ${key.id} cannot be revealed`),
      );
    }
    const typed = formOf(request).code;
    const context = kit.context(request, reply, keyPath(action.keyId), principal);
    const client = clientOf(request);
    let elevated = principal;
    try {
      if (typed) {
        const verified = await portal.redeemStepUp(principal, codeOf(typed), client);
        elevated = { ...principal, stepUpUntil: Date.parse(verified.validUntil) };
      } else if (!isSteppedUp(principal, kit.clock.now())) {
        await portal.requestStepUp(principal, client);
        return kit.send(reply, 200, stepUpPage(context, action));
      }
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.refuse(reply, error, stepUpPage(context, action, message));
    }
    try {
      return await perform(elevated);
    } catch (error) {
      return showKey(request, reply, elevated, error);
    }
  }

  pages.post('/keys/:id/reveal', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const keyId = (request.params as { id: string }).id;
    return withStepUp(request, reply, principal, { kind: 'reveal', keyId }, async (elevated) => {
      const { key } = await portal.revealKey(elevated, keyId, clientOf(request));
      const context = kit.context(request, reply, keyPath(keyId), elevated);
      return kit.send(reply, 200, revealedPage(context, keyId, key));
    });
  });

  // Rotation is said in words and confirmed before the step-up code is even asked for.
  pages.post('/keys/:id/rotate', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const form = formOf(request);
    const asked = Number(form.overlapHours ?? 24);
    const overlapHours = (ROTATION_OVERLAPS as readonly number[]).includes(asked) ? asked : 24;
    if (form.confirmed !== '1') {
      const key = await keyOf(request, reply, principal);
      if (!key) return reply;
      const context = kit.context(request, reply, keyPath(key.id), principal);
      const oldKeyUntil = Math.min(key.expiresAt, kit.clock.now() + overlapHours * HOUR_MS);
      return kit.send(reply, 200, rotateConfirmPage(context, key, overlapHours, oldKeyUntil));
    }
    const keyId = (request.params as { id: string }).id;
    return withStepUp(
      request,
      reply,
      principal,
      { kind: 'rotate', keyId, overlapHours },
      async (elevated) => {
        const rotated = await portal.rotateKey(elevated, keyId, overlapHours, clientOf(request));
        const oldKeyUntil = Date.parse(rotated.previousKeyValidUntil);
        const context = kit.context(request, reply, keyPath(rotated.id), elevated);
        return kit.send(
          reply,
          200,
          rotatedPage(context, {
            id: rotated.id,
            key: rotated.key,
            oldKeyUntil,
            oldKeyStopped: oldKeyUntil <= kit.clock.now(),
          }),
        );
      },
    );
  });

  registerWebhookRoutes(pages, kit, { showKey, withStepUp });
  registerExportRoutes(pages, kit, { showKey, withStepUp });

  pages.get('/devices', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const context = kit.context(request, reply, `${PORTAL_PATH}/devices`, principal);
    const revoked = (request.query as Record<string, string>).done === 'revoked';
    const { data } = await portal.listDevices(principal);
    return kit.send(
      reply,
      200,
      devicesPage(context, data, revoked ? { news: context.t.devices.revoked } : {}),
    );
  });

  pages.post('/devices/:id/revoke', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const deviceId = (request.params as { id: string }).id;
    try {
      await portal.revokeDevice(principal, deviceId, clientOf(request));
    } catch (error) {
      const context = kit.context(request, reply, `${PORTAL_PATH}/devices`, principal);
      const { data } = await portal.listDevices(principal);
      const message = pageErrorOf(error, context.t);
      return kit.refuse(reply, error, devicesPage(context, data, { error: message }));
    }
    return reply.redirect(`${PORTAL_PATH}/devices?done=revoked`, 303);
  });

  pages.get('/password', async (request, reply) => {
    const principal = await kit.holder(request, reply, { allowedBeforePasswordChange: true });
    if (!principal) return reply;
    const context = kit.context(request, reply, `${PORTAL_PATH}/password`, principal);
    const changed = (request.query as Record<string, string>).done === 'changed';
    return kit.send(
      reply,
      200,
      passwordPage(context, changed ? { news: context.t.password.changed } : {}),
    );
  });

  pages.post('/password', async (request, reply) => {
    const principal = await kit.holder(request, reply, { allowedBeforePasswordChange: true });
    if (!principal) return reply;
    const form = formOf(request);
    try {
      const changed = await portal.changePassword(
        principal,
        { currentPassword: form.currentPassword ?? '', newPassword: newPasswordOf(form) },
        clientOf(request),
      );
      // The session goes on under its new token; the old cookie's token is refused from now on.
      cookies.setSession(request, reply, changed.session);
      return reply.redirect(`${PORTAL_PATH}/password?done=changed`, 303);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'unauthorized') {
        // Too many wrong current passwords: the session was ended; signing in again starts afresh.
        cookies.clearSession(request, reply);
        return reply.redirect(`${PORTAL_PATH}/sign-in?done=ended`, 303);
      }
      const context = kit.context(request, reply, `${PORTAL_PATH}/password`, principal);
      const state = isNewPasswordRefusal(error)
        ? { newError: pageErrorOf(error, context.t) }
        : error instanceof ApiError && error.code === 'invalid_credentials'
          ? { currentError: context.t.errors.current_wrong }
          : { error: pageErrorOf(error, context.t) };
      return kit.refuse(reply, error, passwordPage(context, state));
    }
  });

  pages.get('/start', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const context = kit.context(request, reply, `${PORTAL_PATH}/start`, principal);
    return kit.send(reply, 200, startPage(context, kit.publicUrl(), clientPackages));
  });
}
