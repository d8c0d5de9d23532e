import { DEFAULT_KEEP, EXPORT_FORMATS, type ExportView } from '../../exports/exports.service.ts';
import { count, dateTime } from '../format.ts';
import { field, form, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, notice, type PageContext } from '../layout.ts';

export const exportsPath = (keyPath: string) => `${keyPath}/exports`;
/** The form field of one file format: a name of its own (a repeated field is refused). */
export const formatField = (format: string) => `format-${format}`;

/** What the section says after an action, and what was typed when the form is shown again. */
export interface ExportsState {
  done?: 'added' | 'removed';
  error?: string;
  /** The form's fields as typed, never the secret key. */
  values?: Record<string, string>;
}

const at = (context: PageContext, iso: string | null) =>
  dateTime(context.language, iso === null ? null : Date.parse(iso));

/** Where a delivery stands, in words: its next, last or failed run. */
function statusOf(context: PageContext, view: ExportView, readsData: boolean): string {
  const words = context.t.exports;
  if (!readsData) return words.stopped;
  const last = view.lastRun;
  if (!last) return words.firstRun(at(context, view.nextRunAt));
  if (last.state === 'running') return words.running;
  if (last.state === 'done') {
    return words.delivered(
      at(context, last.finishedAt),
      last.files ?? 0,
      count(context.language, last.rows ?? 0),
    );
  }
  return [
    words.failed(at(context, last.finishedAt), last.attempts, last.error ?? '?'),
    last.nextAttemptAt ? words.retry(at(context, last.nextAttemptAt)) : words.givenUp,
    view.lastDelivered ? words.lastGood(at(context, view.lastDelivered.finishedAt)) : '',
  ]
    .filter(Boolean)
    .join(' ');
}

function entry(context: PageContext, keyPath: string, view: ExportView, readsData: boolean) {
  const words = context.t.exports;
  const schedule = view.every === '1h' ? words.schedule['1h'] : words.schedule['1d'](view.at ?? '');
  return html`<li class="endpoint">
<p class="endpoint-url">${words.to} <code>${view.to}</code> ${words.at} <code>${view.endpoint}</code></p>
<p>${schedule}. ${words.formats}: ${view.formats.map((format) => words.formatNames[format]).join(', ')}. ${words.keeps(view.keep)}.</p>
<p class="status">${statusOf(context, view, readsData)}</p>
${form(`${exportsPath(keyPath)}/${encodeURIComponent(view.id)}/remove`, csrfField(context), submit(words.remove, 'danger'), 'inline')}
</li>`;
}

function addForm(context: PageContext, keyPath: string, state: ExportsState): SafeHtml {
  const words = context.t.exports;
  const value = (name: string, fallback = '') => state.values?.[name] ?? fallback;
  const every = value('every', '1d');
  const chosen = (format: string) =>
    state.values ? state.values[formatField(format)] === '1' : format !== 'parquet';
  return form(
    exportsPath(keyPath),
    csrfField(context),
    html`<h3>${words.addTitle}</h3>
${field({ name: 'to', label: words.destination, hint: words.destinationHint, maxLength: 600, value: value('to') })}
${field({ name: 'endpoint', label: words.endpoint, hint: words.endpointHint, maxLength: 2000, autocomplete: 'url', value: value('endpoint') })}
${field({ name: 'region', label: words.region, hint: words.regionHint, maxLength: 64, required: false, value: value('region', 'us-east-1') })}
${field({ name: 'accessKeyId', label: words.accessKey, maxLength: 256, autocomplete: 'off', value: value('accessKeyId') })}
${field({ name: 'secretAccessKey', label: words.secretKey, hint: words.secretHint, type: 'password', maxLength: 256, autocomplete: 'off' })}
<fieldset>
<legend>${words.every}</legend>
${(['1h', '1d'] as const).map(
  (option) =>
    html`<div class="field check"><input type="radio" id="every-${option}" name="every" value="${option}"${every === option ? html` checked` : ''}><label for="every-${option}">${option === '1h' ? words.hourly : words.daily}</label></div>`,
)}
<div class="field"><label for="field-at">${words.time}</label><input id="field-at" name="at" type="time" value="${value('at', '06:00')}"></div>
</fieldset>
<fieldset>
<legend>${words.formatsLegend}</legend>
${EXPORT_FORMATS.map(
  (format) =>
    html`<div class="field check"><input type="checkbox" id="${formatField(format)}" name="${formatField(format)}" value="1"${chosen(format) ? html` checked` : ''}><label for="${formatField(format)}">${words.formatNames[format]}</label></div>`,
)}
</fieldset>
<div class="field"><label for="field-keep">${words.keep}</label><input id="field-keep" name="keep" type="number" min="1" max="100" value="${value('keep', String(DEFAULT_KEEP))}"></div>
${submit(words.add)}`,
    'add-export',
  );
}

/**
 * The key page's section: the key's deliveries to a bucket, each with where it stands in words,
 * and the form to set one up (behind a step-up: the form opens once a code was entered).
 */
export function exportsSection(
  context: PageContext,
  keyPath: string,
  views: ExportView[],
  options: { readsData: boolean; steppedUp: boolean; state?: ExportsState },
): SafeHtml {
  const words = context.t.exports;
  const state = options.state ?? {};
  return html`<section class="webhooks" aria-labelledby="exports-title">
<h2 id="exports-title">${words.title}</h2>
<p>${words.intro(DEFAULT_KEEP)}</p>
${state.done ? notice('status', words[state.done]) : null}
${state.error ? notice('alert', state.error) : null}
${views.length === 0 ? html`<p>${words.none}</p>` : html`<ul class="endpoint-list">${views.map((view) => entry(context, keyPath, view, options.readsData))}</ul>`}
${
  !options.readsData
    ? null
    : options.steppedUp
      ? addForm(context, keyPath, state)
      : form(
          `${exportsPath(keyPath)}/setup`,
          csrfField(context),
          html`<p class="hint">${words.setUpHint}</p>${submit(words.setUp, 'secondary')}`,
        )
}
</section>`;
}
