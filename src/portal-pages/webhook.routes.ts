import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EVENT_TYPES } from '../journal/events.ts';
import { clientOf } from '../portal/portal.routes.ts';
import type { SessionPrincipal } from '../portal/portal.service.ts';
import { HOUR_MS } from '../time-units.ts';
import { formOf } from './form-input.ts';
import type { PageKit } from './page-kit.ts';
import type { ExportsState } from './pages/exports.ts';
import { type KeyAction, keyPath } from './pages/keys.ts';
import {
  deliveriesPage,
  endpointPath,
  eventField,
  type NotificationsState,
  REDELIVER_SINCE_HOURS,
  removeConfirmPage,
  secretPage,
} from './pages/webhooks.ts';

const CHANGES = ['test', 'disable', 'enable', 'remove'] as const;
type Change = (typeof CHANGES)[number];
/** What the key page says after each change (see NotificationsState.done). */
const DONE: Record<Change, NonNullable<NotificationsState['done']>> = {
  test: 'tested',
  disable: 'turnedOff',
  enable: 'turnedOn',
  remove: 'removed',
};

/** What the webhook pages borrow from the key pages: the key page itself, and step-up. */
export interface KeyPageHelpers {
  showKey(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
    error?: unknown,
    notifications?: NotificationsState,
    deliveries?: ExportsState,
  ): Promise<FastifyReply>;
  withStepUp(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
    action: KeyAction,
    perform: (principal: SessionPrincipal) => Promise<FastifyReply>,
  ): Promise<FastifyReply>;
}

/** One of the form's choices; anything else (a fraction, a huge number, words) is a day. */
function sinceHoursOf(value: string | undefined): number {
  const hours = Number(value);
  return (REDELIVER_SINCE_HOURS as readonly number[]).includes(hours) ? hours : 24;
}

const paramsOf = (request: FastifyRequest) =>
  request.params as { id: string; endpointId: string; change?: string };

/**
 * A key's change notifications, on its page: add an endpoint and rotate its secret (each after a
 * step-up, the secret shown once), send a test, turn off and on, remove, and the delivery log
 * with redelivery.
 */
export function registerWebhookRoutes(
  pages: FastifyInstance,
  kit: PageKit,
  { showKey, withStepUp }: KeyPageHelpers,
): void {
  const { portal } = kit;

  pages.post('/keys/:id/webhooks', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const keyId = paramsOf(request).id;
    const form = formOf(request);
    const url = (form.url ?? '').trim();
    const events = EVENT_TYPES.filter((type) => form[eventField(type)] === '1');
    try {
      // A refused address is said before a code is mailed for it.
      await portal.webhooks.checkUrl(principal, keyId, url);
    } catch (error) {
      return showKey(request, reply, principal, error, { url });
    }
    return withStepUp(
      request,
      reply,
      principal,
      { kind: 'webhook-add', keyId, url, events },
      async (elevated) => {
        const added = await portal.webhooks.add(
          elevated,
          keyId,
          { url, events },
          clientOf(request),
        );
        const context = kit.context(request, reply, keyPath(keyId), elevated);
        return kit.send(
          reply,
          200,
          secretPage(context, keyPath(keyId), { url: added.endpoint.url, secret: added.secret }),
        );
      },
    );
  });

  pages.post('/keys/:id/webhooks/:endpointId/rotate', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const { id: keyId, endpointId } = paramsOf(request);
    try {
      // Someone else's endpoint is not found before any code is mailed for it.
      await portal.webhooks.checkEndpoint(principal, keyId, endpointId);
    } catch (error) {
      return showKey(request, reply, principal, error);
    }
    return withStepUp(
      request,
      reply,
      principal,
      { kind: 'webhook-rotate', keyId, endpointId },
      async (elevated) => {
        const rotated = await portal.webhooks.rotate(
          elevated,
          keyId,
          endpointId,
          clientOf(request),
        );
        const endpoints = await portal.webhooks.list(elevated, keyId);
        const url = endpoints.find((endpoint) => endpoint.id === endpointId)?.url ?? '';
        const context = kit.context(request, reply, keyPath(keyId), elevated);
        return kit.send(reply, 200, secretPage(context, keyPath(keyId), { url, ...rotated }));
      },
    );
  });

  pages.post('/keys/:id/webhooks/:endpointId/:change', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const { id: keyId, endpointId, change } = paramsOf(request);
    if (!(CHANGES as readonly string[]).includes(change ?? '')) return reply.callNotFound();
    // Removing is said in words and asked again first; the confirmation posts back here.
    if (change === 'remove' && formOf(request).confirmed !== '1') {
      let endpoint: Awaited<ReturnType<typeof portal.webhooks.list>>[number] | undefined;
      try {
        await portal.webhooks.checkEndpoint(principal, keyId, endpointId);
        endpoint = (await portal.webhooks.list(principal, keyId)).find(
          (one) => one.id === endpointId,
        );
      } catch (error) {
        return showKey(request, reply, principal, error);
      }
      if (!endpoint) return showKey(request, reply, principal);
      const context = kit.context(request, reply, keyPath(keyId), principal);
      return kit.send(reply, 200, removeConfirmPage(context, keyPath(keyId), endpoint));
    }
    try {
      await portal.webhooks.change(principal, keyId, endpointId, change as Change);
    } catch (error) {
      return showKey(request, reply, principal, error);
    }
    return reply.redirect(`${keyPath(keyId)}?done=${DONE[change as Change]}#webhooks-title`, 303);
  });

  pages.get('/keys/:id/webhooks/:endpointId', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const { id: keyId, endpointId } = paramsOf(request);
    const path = endpointPath(keyPath(keyId), endpointId);
    let endpoint: Awaited<ReturnType<typeof portal.webhooks.list>>[number] | undefined;
    let deliveries: Awaited<ReturnType<typeof portal.webhooks.deliveries>>;
    try {
      deliveries = await portal.webhooks.deliveries(principal, keyId, endpointId);
      endpoint = (await portal.webhooks.list(principal, keyId)).find(
        (one) => one.id === endpointId,
      );
    } catch (error) {
      return showKey(request, reply, principal, error);
    }
    if (!endpoint) return showKey(request, reply, principal);
    const context = kit.context(request, reply, path, principal);
    const redelivered = Number((request.query as Record<string, string>).redelivered);
    const news = Number.isInteger(redelivered)
      ? context.t.webhooks.redelivered(redelivered)
      : undefined;
    return kit.send(
      reply,
      200,
      deliveriesPage(context, keyPath(keyId), endpoint, deliveries, news),
    );
  });

  pages.post('/keys/:id/webhooks/:endpointId/redeliver', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const { id: keyId, endpointId } = paramsOf(request);
    const form = formOf(request);
    const which = form.delivery
      ? { deliveryId: form.delivery }
      : { failedSince: kit.clock.now() - sinceHoursOf(form.sinceHours) * HOUR_MS };
    let count: number;
    try {
      count = await portal.webhooks.redeliver(principal, keyId, endpointId, which);
    } catch (error) {
      return showKey(request, reply, principal, error);
    }
    return reply.redirect(`${endpointPath(keyPath(keyId), endpointId)}?redelivered=${count}`, 303);
  });
}
