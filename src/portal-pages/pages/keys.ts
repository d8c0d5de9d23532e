import type { KeyOverview, KeyState } from '../../portal/key-overview.ts';
import { dateTime } from '../format.ts';
import { codeField, form, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, layout, notice, type PageContext, PORTAL_PATH } from '../layout.ts';
import { usageChart } from './usage-chart.ts';

/** The overlaps a holder may choose when rotating, in hours (the API allows 0 to 168). */
export const ROTATION_OVERLAPS = [0, 1, 24, 168] as const;

/** What a step-up confirms: the action it was asked for, carried through the code form. */
export type KeyAction =
  | { kind: 'reveal'; keyId: string }
  | { kind: 'rotate'; keyId: string; overlapHours: number };

function stateText(context: PageContext, state: KeyState): string {
  const { t, language } = context;
  switch (state.kind) {
    case 'active':
      return t.keys.states.active;
    case 'expiring_soon':
      return t.keys.states.expiring_soon(dateTime(language, state.at));
    case 'rotating_out':
      return t.keys.states.rotating_out(dateTime(language, state.until));
    case 'expired':
      return t.keys.states.expired(dateTime(language, state.at));
    case 'revoked':
      return t.keys.states.revoked(dateTime(language, state.at));
  }
}

function scope(context: PageContext, key: KeyOverview): SafeHtml {
  const { t } = context;
  if (key.campaigns.length === 0) return html`<p>${t.keys.noScope}</p>`;
  return html`<ul class="scope">${key.campaigns.map(
    (campaign) =>
      html`<li><strong>${campaign.title ?? t.keys.campaignGone(campaign.id)}</strong> — ${t.keys.fields}: ${campaign.fields.map((f) => f.label).join(', ')}</li>`,
  )}</ul>`;
}

function actions(context: PageContext, key: KeyOverview): SafeHtml {
  const { t } = context;
  const csrf = csrfField(context);
  return html`<div class="actions">
${key.revealable ? form(`${PORTAL_PATH}/keys/${key.id}/reveal`, csrf, submit(t.keys.reveal)) : null}
${
  key.rotatable
    ? form(
        `${PORTAL_PATH}/keys/${key.id}/rotate`,
        csrf,
        html`<div class="field inline"><label for="overlap-${key.id}">${t.keys.overlap}</label>
<select id="overlap-${key.id}" name="overlapHours">${ROTATION_OVERLAPS.map(
          (hours) =>
            html`<option value="${hours}"${hours === 24 ? html` selected` : ''}>${t.keys.overlaps[hours]}</option>`,
        )}</select></div>
${submit(t.keys.rotate, 'secondary')}`,
        'rotate',
      )
    : null
}
</div>`;
}

function keyCard(context: PageContext, key: KeyOverview): SafeHtml {
  const { t, language } = context;
  return html`<article class="key state-${key.state.kind}" aria-labelledby="key-${key.id}">
<h2 id="key-${key.id}">${key.name} <span class="hint-text">${t.keys.lastFour} <code>${key.hint}</code></span></h2>
<dl>
<div><dt>${t.keys.status}</dt><dd class="status">${stateText(context, key.state)}</dd></div>
<div><dt>${t.keys.created}</dt><dd>${dateTime(language, key.createdAt)}</dd></div>
<div><dt>${t.keys.expires}</dt><dd>${dateTime(language, key.expiresAt)}</dd></div>
<div><dt>${t.keys.lastUsed}</dt><dd>${dateTime(language, key.lastUsedAt)}</dd></div>
</dl>
<h3>${t.keys.scope}</h3>
${scope(context, key)}
${actions(context, key)}
${usageChart(context, key, key.usage)}
</article>`;
}

export function keysPage(
  context: PageContext,
  keys: KeyOverview[],
  state: { error?: string } = {},
) {
  const { t } = context;
  return layout(
    context,
    t.keys.title,
    html`${state.error ? notice('alert', state.error) : null}
${keys.length === 0 ? html`<p>${t.keys.none}</p>` : keys.map((key) => keyCard(context, key))}`,
  );
}

/** The code form a sensitive action asks for, in place: the action goes through with the code. */
export function stepUpPage(context: PageContext, action: KeyAction, error?: string): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.keys.stepUpTitle,
    html`<p>${action.kind === 'reveal' ? t.keys.stepUpIntroReveal : t.keys.stepUpIntroRotate}</p>
${form(
  `${PORTAL_PATH}/keys/${action.keyId}/${action.kind}`,
  csrfField(context),
  html`${action.kind === 'rotate' ? html`<input type="hidden" name="overlapHours" value="${action.overlapHours}">` : null}
${codeField(t.signIn.code, t.signIn.codeHint, error)}
${submit(t.keys.stepUpSubmit)}`,
)}
${context.devMailPath ? html`<p><a href="${context.devMailPath}" target="_blank" rel="noopener">${t.signIn.devMail}</a></p>` : null}
<p><a href="${PORTAL_PATH}/keys">${t.keys.cancel}</a></p>`,
  );
}

function shownOnce(context: PageContext, key: string): SafeHtml {
  const { t } = context;
  return html`${notice('status', html`<strong>${t.keys.once}</strong>`)}
<div class="secret">
<label for="revealed-key" class="secret-label">${t.keys.keyLabel}</label>
<textarea id="revealed-key" class="secret-value" rows="3" readonly autocomplete="off" spellcheck="false">${key}</textarea>
<button type="button" class="secondary copy" data-copy="revealed-key" data-copied="${t.keys.copied}" hidden>${t.keys.copy}</button>
</div>`;
}

export function revealedPage(context: PageContext, key: string): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.keys.revealedTitle,
    html`${shownOnce(context, key)}
<p><a href="${PORTAL_PATH}/keys">${t.keys.back}</a></p>`,
  );
}

export function rotatedPage(
  context: PageContext,
  rotated: { key: string; previousKeyValidUntil: string },
): SafeHtml {
  const { t, language } = context;
  return layout(
    context,
    t.keys.rotatedTitle,
    html`${shownOnce(context, rotated.key)}
<p>${t.keys.oldValidUntil(dateTime(language, Date.parse(rotated.previousKeyValidUntil)))}</p>
<p><a href="${PORTAL_PATH}/keys">${t.keys.back}</a></p>`,
  );
}
