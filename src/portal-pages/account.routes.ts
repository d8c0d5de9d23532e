import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { PasswordRuleError } from '../portal/password-change.ts';
import { clientOf } from '../portal/portal.routes.ts';
import type { SessionPrincipal } from '../portal/portal.service.ts';
import { isSteppedUp } from '../portal/step-up.ts';
import { codeOf, formOf, statusOf } from './form-input.ts';
import { PORTAL_PATH } from './layout.ts';
import { pageErrorOf } from './page-errors.ts';
import type { PageKit } from './page-kit.ts';
import { devicesPage, passwordPage, startPage } from './pages/account.ts';
import {
  type KeyAction,
  keysPage,
  ROTATION_OVERLAPS,
  revealedPage,
  rotatedPage,
  stepUpPage,
} from './pages/keys.ts';

const KEYS_PATH = `${PORTAL_PATH}/keys`;

/** The signed-in holder's pages: keys (reveal, rotate, usage), devices, password, get started. */
export function registerAccountRoutes(pages: FastifyInstance, kit: PageKit): void {
  const { portal } = kit;

  pages.get('/', async (_request, reply) => reply.redirect(KEYS_PATH, 303));

  const showKeys = async (
    request: FastifyRequest,
    reply: FastifyReply,
    principal: SessionPrincipal,
    error?: unknown,
  ) => {
    const context = kit.context(request, reply, KEYS_PATH, principal);
    const keys = await portal.keyOverview(principal);
    const state = error === undefined ? {} : { error: pageErrorOf(error, context.t) };
    return kit.send(
      reply,
      error === undefined ? 200 : statusOf(error),
      keysPage(context, keys, state),
    );
  };

  pages.get('/keys', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    return principal ? showKeys(request, reply, principal) : reply;
  });

  /**
   * A sensitive action with its step-up in place: without a fresh step-up a code is mailed and its
   * form shown; the form comes back here with the code, and the action goes through.
   */
  async function withStepUp(
    request: FastifyRequest,
    reply: FastifyReply,
    action: KeyAction,
    perform: (principal: SessionPrincipal) => Promise<FastifyReply>,
  ) {
    let principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const typed = formOf(request).code;
    const context = kit.context(request, reply, KEYS_PATH, principal);
    const client = clientOf(request);
    try {
      if (typed) {
        const verified = await portal.redeemStepUp(principal, codeOf(typed), client);
        principal = { ...principal, stepUpUntil: Date.parse(verified.validUntil) };
      } else if (!isSteppedUp(principal, kit.clock.now())) {
        await portal.requestStepUp(principal, client);
        return kit.send(reply, 200, stepUpPage(context, action));
      }
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.send(reply, statusOf(error), stepUpPage(context, action, message));
    }
    try {
      return await perform(principal);
    } catch (error) {
      return showKeys(request, reply, principal, error);
    }
  }

  pages.post('/keys/:id/reveal', async (request, reply) => {
    const keyId = (request.params as { id: string }).id;
    return withStepUp(request, reply, { kind: 'reveal', keyId }, async (principal) => {
      const { key } = await portal.revealKey(principal, keyId, clientOf(request));
      const context = kit.context(request, reply, KEYS_PATH, principal);
      return kit.send(reply, 200, revealedPage(context, key));
    });
  });

  pages.post('/keys/:id/rotate', async (request, reply) => {
    const keyId = (request.params as { id: string }).id;
    const asked = Number(formOf(request).overlapHours ?? 24);
    const overlapHours = (ROTATION_OVERLAPS as readonly number[]).includes(asked) ? asked : 24;
    return withStepUp(
      request,
      reply,
      { kind: 'rotate', keyId, overlapHours },
      async (principal) => {
        const rotated = await portal.rotateKey(principal, keyId, overlapHours, clientOf(request));
        const context = kit.context(request, reply, KEYS_PATH, principal);
        return kit.send(reply, 200, rotatedPage(context, rotated));
      },
    );
  });

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
      return kit.send(reply, statusOf(error), devicesPage(context, data, { error: message }));
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
      await portal.changePassword(
        principal,
        { currentPassword: form.currentPassword ?? '', newPassword: form.newPassword ?? '' },
        clientOf(request),
      );
      return reply.redirect(`${PORTAL_PATH}/password?done=changed`, 303);
    } catch (error) {
      const context = kit.context(request, reply, `${PORTAL_PATH}/password`, principal);
      const state =
        error instanceof PasswordRuleError
          ? { newError: pageErrorOf(error, context.t) }
          : error instanceof ApiError && error.code === 'invalid_credentials'
            ? { currentError: context.t.errors.current_wrong }
            : { error: pageErrorOf(error, context.t) };
      return kit.send(reply, statusOf(error), passwordPage(context, state));
    }
  });

  pages.get('/start', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const context = kit.context(request, reply, `${PORTAL_PATH}/start`, principal);
    return kit.send(reply, 200, startPage(context, `${request.protocol}://${request.host}`));
  });
}
