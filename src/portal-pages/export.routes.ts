import type { FastifyInstance, FastifyRequest } from 'fastify';
import { minutesOf, type Schedule } from '../exports/export-schedule.ts';
import { EXPORT_FORMATS } from '../exports/exports.service.ts';
import { ExportRefused } from '../portal/holder-exports.ts';
import { isSteppedUp } from '../portal/step-up.ts';
import { type Form, formOf } from './form-input.ts';
import type { PageKit } from './page-kit.ts';
import { formatField } from './pages/exports.ts';
import { keyPath } from './pages/keys.ts';
import type { KeyPageHelpers } from './webhook.routes.ts';

const paramsOf = (request: FastifyRequest) => request.params as { id: string; exportId: string };

/** The fields of the add form as typed, for the form shown again: never the secret key. */
function typedValues(form: Form): Record<string, string> {
  return Object.fromEntries(
    Object.entries(form).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && entry[0] !== 'secretAccessKey' && entry[0] !== '_csrf',
    ),
  );
}

/** The form's schedule; an unreadable time is the service's refusal, said at the form. */
function scheduleOf(form: Form): Schedule | string {
  if (form.every === '1h') return { every: '1h' };
  const minutes = minutesOf(form.at ?? '');
  return minutes === undefined
    ? `the time ${form.at ?? ''} is not HH:MM`
    : { every: '1d', atMinute: minutes };
}

/**
 * A key's deliveries to a bucket, on its page: the form opens after a step-up (its secret key is
 * typed once and never carried through another page); a delivery is set up and removed there.
 */
export function registerExportRoutes(
  pages: FastifyInstance,
  kit: PageKit,
  { showKey, withStepUp }: KeyPageHelpers,
): void {
  const { portal } = kit;

  pages.post('/keys/:id/exports/setup', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const keyId = paramsOf(request).id;
    return withStepUp(request, reply, principal, { kind: 'export-setup', keyId }, async () =>
      reply.redirect(`${keyPath(keyId)}#exports-title`, 303),
    );
  });

  pages.post('/keys/:id/exports', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const keyId = paramsOf(request).id;
    const form = formOf(request);
    const values = typedValues(form);
    const words = kit.context(request, reply, keyPath(keyId), principal).t.exports;
    if (!isSteppedUp(principal, kit.clock.now())) {
      return showKey(request, reply, principal, undefined, {}, { error: words.stepUpExpired });
    }
    const schedule = scheduleOf(form);
    if (typeof schedule === 'string') {
      return showKey(
        request,
        reply,
        principal,
        undefined,
        {},
        { error: words.refused(schedule), values },
      );
    }
    try {
      await portal.exports.add(principal, keyId, {
        to: (form.to ?? '').trim(),
        endpoint: (form.endpoint ?? '').trim(),
        ...(form.region?.trim() ? { region: form.region.trim() } : {}),
        credentials: {
          accessKeyId: (form.accessKeyId ?? '').trim(),
          secretAccessKey: form.secretAccessKey ?? '',
        },
        schedule,
        formats: EXPORT_FORMATS.filter((format) => form[formatField(format)] === '1'),
        keep: Number(form.keep ?? 7),
      });
    } catch (error) {
      if (!(error instanceof ExportRefused)) throw error;
      return showKey(
        request,
        reply,
        principal,
        undefined,
        {},
        {
          error: words.refused(error.message),
          values,
        },
      );
    }
    return reply.redirect(`${keyPath(keyId)}?done=export-added#exports-title`, 303);
  });

  pages.post('/keys/:id/exports/:exportId/remove', async (request, reply) => {
    const principal = await kit.holder(request, reply);
    if (!principal) return reply;
    const { id: keyId, exportId } = paramsOf(request);
    try {
      await portal.exports.remove(principal, keyId, exportId);
    } catch (error) {
      return showKey(request, reply, principal, error);
    }
    return reply.redirect(`${keyPath(keyId)}?done=export-removed#exports-title`, 303);
  });
}
