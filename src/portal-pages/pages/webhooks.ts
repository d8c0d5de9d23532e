import { EVENT_TYPES } from '../../journal/events.ts';
import type { DeliveryView, EndpointView } from '../../notifications/endpoints.service.ts';
import { lastAnswer } from '../delivery-failure.ts';
import { dateTime } from '../format.ts';
import { field, form, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, layout, notice, type PageContext } from '../layout.ts';

/** How far back "send again" reaches for failed notifications, in hours: the form's choices. */
export const REDELIVER_SINCE_HOURS = [1, 24, 168, 720] as const;

export const webhooksPath = (keyPath: string) => `${keyPath}/webhooks`;
export const endpointPath = (keyPath: string, endpointId: string) =>
  `${webhooksPath(keyPath)}/${encodeURIComponent(endpointId)}`;

/** The form field of one event type: a name of its own (a repeated field is refused). */
export const eventField = (type: string) => `event-${type.replace('.', '-')}`;

/** A phrase as a label starts: with a capital. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const at = (context: PageContext, iso: string | null) =>
  dateTime(context.language, iso === null ? null : Date.parse(iso));

function endpointStatus(context: PageContext, endpoint: EndpointView): string {
  const { t } = context;
  if (endpoint.status === 'disabled') {
    return t.webhooks.disabled(t.webhooks.disabledWhy[endpoint.disabledReason ?? ''] ?? '');
  }
  if (endpoint.failingSince !== null) return t.webhooks.failing(at(context, endpoint.failingSince));
  return t.webhooks.enabled(at(context, endpoint.lastSuccessAt));
}

function endpointEntry(context: PageContext, keyPath: string, endpoint: EndpointView): SafeHtml {
  const { t } = context;
  const path = endpointPath(keyPath, endpoint.id);
  const events = endpoint.events.length === 0 ? t.webhooks.everyEvent : endpoint.events.join(', ');
  const button = (action: string, label: string, kind: 'secondary' | 'danger' = 'secondary') =>
    form(`${path}/${action}`, csrfField(context), submit(label, kind), 'inline');
  return html`<li class="endpoint">
<p class="endpoint-url"><code>${endpoint.url}</code></p>
<p>${t.webhooks.events}: ${events}</p>
<p class="status">${endpointStatus(context, endpoint)}</p>
${endpoint.previousSecretUntil ? html`<p class="hint">${t.webhooks.oldSecretUntil(at(context, endpoint.previousSecretUntil))}</p>` : null}
<p><a href="${path}">${t.webhooks.log}</a></p>
<div class="actions">
${button('test', t.webhooks.test)}
${endpoint.status === 'enabled' ? button('disable', t.webhooks.disable) : button('enable', t.webhooks.enable)}
${button('rotate', t.webhooks.rotate)}
${button('remove', t.webhooks.remove, 'danger')}
</div>
</li>`;
}

/** What the section says after an action: news, or a refused URL with what was typed. */
export type NotificationsState = {
  done?: 'tested' | 'turnedOff' | 'turnedOn' | 'removed';
  error?: string;
  url?: string;
};

/** The key page's section: the key's endpoints, and a form to add one. */
export function webhooksSection(
  context: PageContext,
  keyPath: string,
  endpoints: EndpointView[],
  state: NotificationsState = {},
): SafeHtml {
  const { t } = context;
  return html`<section class="webhooks" aria-labelledby="webhooks-title">
<h2 id="webhooks-title">${t.webhooks.title}</h2>
<p>${t.webhooks.intro}</p>
${state.done ? notice('status', t.webhooks[state.done]) : null}
${endpoints.length === 0 ? html`<p>${t.webhooks.none}</p>` : html`<ul class="endpoint-list">${endpoints.map((endpoint) => endpointEntry(context, keyPath, endpoint))}</ul>`}
${form(
  webhooksPath(keyPath),
  csrfField(context),
  html`<h3>${t.webhooks.addTitle}</h3>
${field({ name: 'url', label: t.webhooks.url, hint: t.webhooks.urlHint, maxLength: 2000, autocomplete: 'url', ...(state.url ? { value: state.url } : {}), ...(state.error ? { error: state.error } : {}) })}
<fieldset>
<legend>${t.webhooks.which}</legend>
<p class="hint">${t.webhooks.whichHint}</p>
${EVENT_TYPES.map(
  (type) =>
    html`<div class="field check"><input type="checkbox" id="${eventField(type)}" name="${eventField(type)}" value="1"><label for="${eventField(type)}">${sentence(t.webhooks.eventMeaning[type] ?? type)} <span class="muted"><code>${type}</code></span></label></div>`,
)}
</fieldset>
${submit(t.webhooks.add)}`,
  'add-endpoint',
)}
</section>`;
}

/** What removing an endpoint does, said before it is done; works without JavaScript. */
export function removeConfirmPage(
  context: PageContext,
  keyPath: string,
  endpoint: { id: string; url: string },
): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.webhooks.removeTitle,
    html`${notice('alert', t.webhooks.removeConsequence(endpoint.url))}
${form(
  `${endpointPath(keyPath, endpoint.id)}/remove`,
  csrfField(context),
  html`<input type="hidden" name="confirmed" value="1">
${submit(t.webhooks.removeConfirm, 'danger')}`,
)}
<p><a href="${keyPath}">${t.keys.cancel}</a></p>`,
  );
}

/** An endpoint's secret, once: after adding it or giving it a new one. */
export function secretPage(
  context: PageContext,
  keyPath: string,
  shown: { url: string; secret: string; previousSecretUntil?: string },
): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.webhooks.secretTitle,
    html`${notice('status', html`<strong>${t.webhooks.secretOnce}</strong>`)}
<p>${t.webhooks.secretFor} <code>${shown.url}</code></p>
<div class="secret">
<label for="endpoint-secret" class="secret-label">${t.webhooks.secretLabel}</label>
<textarea id="endpoint-secret" class="secret-value" rows="2" readonly autocomplete="off" spellcheck="false">${shown.secret}</textarea>
<button type="button" class="secondary copy" data-copy="endpoint-secret" data-copied="${t.keys.copied}" hidden>${t.keys.copy}</button>
</div>
<p>${shown.previousSecretUntil ? t.webhooks.bothSign(at(context, shown.previousSecretUntil)) : t.webhooks.verifyHint}</p>
<p><a href="${keyPath}">${t.keys.backToKey}</a></p>`,
  );
}

function deliveryRow(context: PageContext, path: string, delivery: DeliveryView): SafeHtml {
  const { t } = context;
  const answer = lastAnswer(t, delivery.lastStatus, delivery.lastError);
  const outcome = answer.words
    ? html`${answer.words}<br><span class="muted technical">${answer.technical}</span>`
    : answer.technical;
  return html`<tr>
<td>${at(context, delivery.createdAt)}</td>
<td><code>${delivery.event}</code></td>
<td>${t.webhooks.states[delivery.state]}${delivery.nextAttemptAt ? html`<br><span class="muted">${t.webhooks.next(at(context, delivery.nextAttemptAt))}</span>` : null}</td>
<td>${String(delivery.attempts)}</td>
<td>${outcome}${delivery.lastDurationMs !== null ? html`<br><span class="muted">${delivery.lastDurationMs} ms</span>` : null}</td>
<td>${delivery.state === 'pending' ? null : form(`${path}/redeliver`, csrfField(context), html`<input type="hidden" name="delivery" value="${delivery.id}">${submit(t.webhooks.redeliver, 'secondary')}`, 'inline')}</td>
</tr>`;
}

/** The delivery log of one endpoint: 30 days, newest first, with redelivery. */
export function deliveriesPage(
  context: PageContext,
  keyPath: string,
  endpoint: EndpointView,
  deliveries: DeliveryView[],
  news?: string,
): SafeHtml {
  const { t } = context;
  const path = endpointPath(keyPath, endpoint.id);
  return layout(
    context,
    t.webhooks.logTitle,
    html`${news ? notice('status', news) : null}
<p><code>${endpoint.url}</code></p>
<p class="status">${endpointStatus(context, endpoint)}</p>
${
  deliveries.length === 0
    ? html`<p>${t.webhooks.noDeliveries}</p>`
    : html`<h2 id="deliveries-title">${t.webhooks.logTableTitle}</h2>
<div class="table-scroll" role="region" tabindex="0" aria-labelledby="deliveries-title"><table>
<thead><tr><th scope="col">${t.webhooks.when}</th><th scope="col">${t.webhooks.event}</th><th scope="col">${t.webhooks.state}</th><th scope="col">${t.webhooks.attempts}</th><th scope="col">${t.webhooks.answer}</th><th scope="col"><span class="visually-hidden">${t.webhooks.redeliver}</span></th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(context, path, delivery))}</tbody>
</table></div>`
}
${form(
  `${path}/redeliver`,
  csrfField(context),
  html`<fieldset><legend>${t.webhooks.redeliverFailed}</legend>
${REDELIVER_SINCE_HOURS.map((hours) => html`<div class="field check"><input type="radio" id="since-${hours}" name="sinceHours" value="${hours}"${hours === 24 ? html` checked` : ''}><label for="since-${hours}">${t.webhooks.since[hours]}</label></div>`)}
</fieldset>
${submit(t.webhooks.redeliverFailedSubmit, 'secondary')}`,
)}
<p><a href="${keyPath}">${t.keys.backToKey}</a></p>`,
  );
}
