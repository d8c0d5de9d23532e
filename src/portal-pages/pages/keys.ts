import type { GuestListFormat } from '../../guest-list/guest-list.ts';
import { readsData } from '../../portal/guest-list-overview.ts';
import type { KeyOverview, KeyState } from '../../portal/key-overview.ts';
import { dateTime, day } from '../format.ts';
import { codeField, form, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, layout, notice, type PageContext, PORTAL_PATH } from '../layout.ts';
import { exportsPath } from './exports.ts';
import { usageChart } from './usage-chart.ts';
import { endpointPath, eventField, webhooksPath } from './webhooks.ts';

/** The overlaps a holder may choose when rotating, in hours (the API allows 0 to 168). */
export const ROTATION_OVERLAPS = [0, 1, 24, 168] as const;

/** What a step-up confirms: the action it was asked for, carried through the code form. */
export type KeyAction =
  | { kind: 'reveal'; keyId: string }
  | { kind: 'rotate'; keyId: string; overlapHours: number }
  | { kind: 'webhook-add'; keyId: string; url: string; events: string[] }
  | { kind: 'webhook-rotate'; keyId: string; endpointId: string }
  | { kind: 'export-setup'; keyId: string };

export const keyPath = (keyId: string) => `${PORTAL_PATH}/keys/${encodeURIComponent(keyId)}`;

/** Where a key's guest list of one campaign downloads (see guest-list.routes.ts). */
export const guestListPath = (keyId: string, campaignId: string, format: GuestListFormat) =>
  `${keyPath(keyId)}/campaigns/${encodeURIComponent(campaignId)}/guest-list.${format}`;

/** A key's state in words: what it does now and until when, as a holder reads it. */
export function stateText(context: PageContext, state: KeyState, now: number): string {
  const { t, language } = context;
  switch (state.kind) {
    case 'active':
      return t.keys.states.active(day(language, state.until));
    case 'expiring_soon':
      return t.keys.states.expiring_soon(t.timeLeft(state.at - now), dateTime(language, state.at));
    case 'rotating_out':
      return t.keys.states.rotating_out(
        t.timeLeft(state.until - now),
        dateTime(language, state.until),
      );
    case 'expired':
      return t.keys.states.expired(dateTime(language, state.at));
    case 'revoked':
      return t.keys.states.revoked(dateTime(language, state.at));
  }
}

/** A campaign's guest list as Excel and as CSV, through one key. */
export function downloads(
  context: PageContext,
  key: { id: string },
  campaign: { id: string; title: string },
) {
  const { t } = context;
  return html`<span class="downloads">${(
    [
      ['xlsx', t.guestLists.downloadExcel, 'Excel'],
      ['csv', t.guestLists.downloadCsv, 'CSV'],
    ] as const
  ).map(
    ([format, text, name]) =>
      html`<a class="button secondary" href="${guestListPath(key.id, campaign.id, format)}" download aria-label="${t.guestLists.downloadLabel(name, campaign.title)}">${text}</a>`,
  )}</span>`;
}

/**
 * What a key reads: each campaign by its title, with its fields by their labels, and on the key's
 * own page, while the key reads data, its guest list to download.
 */
function scope(context: PageContext, key: KeyOverview, withDownloads = false): SafeHtml {
  const { t } = context;
  if (key.campaigns.length === 0) return html`<p>${t.keys.noScope}</p>`;
  const offered = withDownloads && readsData(key);
  return html`<ul class="scope">${key.campaigns.map(
    (campaign) =>
      html`<li><strong>${campaign.title ?? t.keys.campaignGone(campaign.id)}</strong>: ${
        campaign.fields.length === 0
          ? t.keys.totalsOnly
          : campaign.fields.map((field) => field.label).join(', ')
      }${offered && campaign.title !== null ? downloads(context, key, { id: campaign.id, title: campaign.title }) : null}</li>`,
  )}</ul>${offered ? html`<p class="hint">${t.guestLists.downloadHint}</p>` : null}`;
}

function keySummary(context: PageContext, key: KeyOverview, now: number): SafeHtml {
  const { t, language } = context;
  return html`<li class="key state-${key.state.kind}">
<h2><a href="${keyPath(key.id)}">${key.name}</a> <span class="hint-text">${t.keys.lastFour} <code>${key.hint}</code></span></h2>
<p class="status">${stateText(context, key.state, now)}</p>
<p class="reads">${t.keys.reads}</p>
${scope(context, key)}
<p class="used">${t.keys.lastUsed}: ${dateTime(language, key.lastUsedAt)}</p>
</li>`;
}

/** Every key of the account, one short entry each; the detail is on each key's own page. */
export function keysPage(
  context: PageContext,
  keys: KeyOverview[],
  now: number,
  state: { error?: string } = {},
) {
  const { t } = context;
  return layout(
    context,
    t.keys.title,
    html`${state.error ? notice('alert', state.error) : null}
${
  keys.length === 0
    ? html`<p>${t.keys.none}</p>`
    : html`<ul class="key-list">${keys.map((key) => keySummary(context, key, now))}</ul>`
}`,
  );
}

function rotateForm(context: PageContext, key: KeyOverview): SafeHtml {
  const { t } = context;
  return form(
    `${keyPath(key.id)}/rotate`,
    csrfField(context),
    html`<fieldset>
<legend>${t.keys.rotateLegend}</legend>
<p class="hint">${t.keys.rotateIntro}</p>
${ROTATION_OVERLAPS.map(
  (hours) =>
    html`<div class="field check"><input type="radio" id="overlap-${hours}" name="overlapHours" value="${hours}"${hours === 24 ? html` checked` : ''}><label for="overlap-${hours}">${t.keys.overlaps[hours]}</label></div>`,
)}
</fieldset>
${submit(t.keys.rotateContinue, 'secondary')}`,
    'rotate',
  );
}

/** One key: its state, what it reads, reveal and rotation, and its usage. */
export function keyPage(
  context: PageContext,
  key: KeyOverview,
  now: number,
  state: { error?: string } = {},
  /** The key's change notifications (see webhooksSection). */
  notifications: SafeHtml | null = null,
): SafeHtml {
  const { t, language } = context;
  return layout(
    context,
    t.keys.keyTitle(key.name),
    html`${state.error ? notice('alert', state.error) : null}
<div class="key state-${key.state.kind}">
<dl>
<div><dt>${t.keys.status}</dt><dd class="status">${stateText(context, key.state, now)}</dd></div>
<div><dt>${t.keys.lastFour}</dt><dd><code>${key.hint}</code></dd></div>
<div><dt>${t.keys.created}</dt><dd>${dateTime(language, key.createdAt)}</dd></div>
<div><dt>${t.keys.expires}</dt><dd>${dateTime(language, key.expiresAt)}</dd></div>
<div><dt>${t.keys.lastUsed}</dt><dd>${dateTime(language, key.lastUsedAt)}</dd></div>
</dl>
</div>
<h2>${t.keys.reads}</h2>
${scope(context, key, true)}
${
  key.revealable
    ? html`<h2>${t.keys.revealTitle}</h2>
<p>${t.keys.revealIntro}</p>
${form(`${keyPath(key.id)}/reveal`, csrfField(context), submit(t.keys.reveal))}`
    : null
}
${key.rotatable ? html`<h2>${t.keys.rotateTitle}</h2>${rotateForm(context, key)}` : null}
${notifications}
${usageChart(context, key, key.usage)}
<p><a href="${PORTAL_PATH}/keys">${t.keys.back}</a></p>`,
  );
}

/** What rotating with this overlap will do, said before it is done. */
export function rotateConfirmPage(
  context: PageContext,
  key: KeyOverview,
  overlapHours: number,
  oldKeyUntil: number,
): SafeHtml {
  const { t, language } = context;
  const consequence =
    overlapHours === 0
      ? t.keys.confirmNow
      : t.keys.confirmOverlap(t.keys.overlaps[overlapHours] ?? '', dateTime(language, oldKeyUntil));
  return layout(
    context,
    t.keys.confirmTitle(key.name),
    html`${notice(overlapHours === 0 ? 'alert' : 'status', consequence)}
<p>${t.keys.confirmNewKey}</p>
${form(
  `${keyPath(key.id)}/rotate`,
  csrfField(context),
  html`<input type="hidden" name="overlapHours" value="${overlapHours}">
<input type="hidden" name="confirmed" value="1">
${submit(overlapHours === 0 ? t.keys.confirmSubmitNow : t.keys.confirmSubmit, overlapHours === 0 ? 'danger' : 'primary')}`,
)}
<p><a href="${keyPath(key.id)}">${t.keys.cancel}</a></p>`,
  );
}

/** Where a sensitive action posts, what it carries, and what its code form says. */
function stepUpTarget(context: PageContext, action: KeyAction) {
  const { t } = context;
  const path = keyPath(action.keyId);
  switch (action.kind) {
    case 'reveal':
      return { path: `${path}/reveal`, intro: t.keys.stepUpIntroReveal, hidden: {} };
    case 'rotate':
      return {
        path: `${path}/rotate`,
        intro: t.keys.stepUpIntroRotate,
        hidden: { overlapHours: String(action.overlapHours), confirmed: '1' },
      };
    case 'webhook-add':
      return {
        path: webhooksPath(path),
        intro: t.webhooks.stepUpIntroAdd,
        hidden: {
          url: action.url,
          ...Object.fromEntries(action.events.map((type) => [eventField(type), '1'])),
        },
      };
    case 'webhook-rotate':
      return {
        path: `${endpointPath(path, action.endpointId)}/rotate`,
        intro: t.webhooks.stepUpIntroRotate,
        hidden: {},
      };
    case 'export-setup':
      return { path: `${exportsPath(path)}/setup`, intro: t.exports.stepUpIntro, hidden: {} };
  }
}

/** The code form a sensitive action asks for, in place: the action goes through with the code. */
export function stepUpPage(context: PageContext, action: KeyAction, error?: string): SafeHtml {
  const { t } = context;
  const target = stepUpTarget(context, action);
  return layout(
    context,
    t.keys.stepUpTitle,
    html`<p>${target.intro}</p>
${form(
  target.path,
  csrfField(context),
  html`${Object.entries(target.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
${codeField(t.signIn.code, t.signIn.codeHint, error)}
${submit(t.keys.stepUpSubmit)}`,
)}
${context.devMailPath ? html`<p><a href="${context.devMailPath}" target="_blank" rel="noopener">${t.signIn.devMail}</a></p>` : null}
<p><a href="${keyPath(action.keyId)}">${t.keys.cancel}</a></p>`,
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

export function revealedPage(context: PageContext, keyId: string, key: string): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.keys.revealedTitle,
    html`${shownOnce(context, key)}
<p><a href="${keyPath(keyId)}">${t.keys.backToKey}</a></p>`,
  );
}

/** The new key, once, and the truth about the old one: stopped, or working until when. */
export function rotatedPage(
  context: PageContext,
  rotated: { id: string; key: string; oldKeyUntil: number; oldKeyStopped: boolean },
): SafeHtml {
  const { t, language } = context;
  return layout(
    context,
    t.keys.rotatedTitle,
    html`${shownOnce(context, rotated.key)}
<p>${rotated.oldKeyStopped ? t.keys.oldStopped : t.keys.oldValidUntil(dateTime(language, rotated.oldKeyUntil))}</p>
<p><a href="${keyPath(rotated.id)}">${t.keys.toNewKey}</a></p>`,
  );
}
