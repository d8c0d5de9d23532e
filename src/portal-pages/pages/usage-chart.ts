import type { UsageDay } from '../../keys/usage-days.repository.ts';
import { count, shortDay } from '../format.ts';
import { html, type SafeHtml } from '../html.ts';
import type { PageContext } from '../layout.ts';

const SERIES = ['answered', 'not_modified', 'rate_limited', 'errors'] as const;
const WIDTH = 600;
const HEIGHT = 120;
const BAR_GAP = 2;

/** A round top for the chart's scale (1, 2 or 5 times a power of ten), so its label reads well. */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** A day with any request or row in it. */
const busy = (day: UsageDay) => SERIES.some((series) => day[series] > 0) || day.rows > 0;

/**
 * The figures behind the chart, newest day first: only the days with requests, then one line
 * for the quiet ones, so a key used on two days of thirty shows two rows, not thirty of zeros.
 */
function usageTable(
  context: PageContext,
  tableId: string,
  days: UsageDay[],
  labels: Record<(typeof SERIES)[number], string>,
): SafeHtml {
  const { t, language } = context;
  const shown = days.filter(busy).reverse();
  if (shown.length === 0) return html`<p>${t.usage.noRequests}</p>`;
  const quiet = days.length - shown.length;
  return html`<h3 id="${tableId}-title">${t.usage.tableTitle}</h3>
<div class="table-scroll" role="region" tabindex="0" aria-labelledby="${tableId}-title"><table id="${tableId}" class="figures">
<thead><tr><th scope="col">${t.usage.day}</th>${SERIES.map((series) => html`<th scope="col">${labels[series]}</th>`)}<th scope="col">${t.usage.rows}</th></tr></thead>
<tbody>${shown.map(
    (day) =>
      html`<tr><th scope="row">${shortDay(language, day.day)}</th>${SERIES.map((series) => html`<td>${count(language, day[series])}</td>`)}<td>${count(language, day.rows)}</td></tr>`,
  )}</tbody>
</table></div>
${quiet > 0 ? html`<p class="hint">${t.usage.quietDays(quiet)}</p>` : null}
<dl class="hint">${SERIES.map(
    (series) => html`<dt>${labels[series]}</dt><dd>${t.usage.explained[EXPLAINED[series]]}</dd>`,
  )}<dt>${t.usage.rows}</dt><dd>${t.usage.explained.rows}</dd></dl>`;
}

/** Where each series of the chart is explained in words, below its table. */
const EXPLAINED = {
  answered: 'answered',
  not_modified: 'notModified',
  rate_limited: 'rateLimited',
  errors: 'errors',
} as const;

/**
 * A key's requests per day as stacked bars (answered, answered from cache, refused by the rate
 * limit, errors), drawn on the server so it shows with JavaScript off. Its labels are text
 * beside the drawing, so they stay readable when it shrinks on a phone. The same figures follow
 * in a table (see usageTable), in a scroll region a keyboard can reach.
 */
export function usageChart(
  context: PageContext,
  key: { id: string; name: string; hint: string },
  days: UsageDay[],
): SafeHtml {
  const { t, language } = context;
  const totals = days.map((day) => SERIES.reduce((sum, series) => sum + day[series], 0));
  const requests = totals.reduce((sum, value) => sum + value, 0);
  const rows = days.reduce((sum, day) => sum + day.rows, 0);
  const top = niceCeiling(Math.max(...totals, 0));
  const barWidth = WIDTH / days.length;
  const labels: Record<(typeof SERIES)[number], string> = {
    answered: t.usage.answered,
    not_modified: t.usage.notModified,
    rate_limited: t.usage.rateLimited,
    errors: t.usage.errors,
  };
  const terms: Partial<Record<(typeof SERIES)[number], string>> = {
    not_modified: t.usage.notModifiedTerm,
    rate_limited: t.usage.rateLimitedTerm,
  };
  const bars = days.map((day, index) => {
    let y = HEIGHT;
    return SERIES.map((series) => {
      const height = (day[series] / top) * HEIGHT;
      if (height === 0) return null;
      y -= height;
      return html`<rect class="bar ${series}" x="${(index * barWidth + BAR_GAP / 2).toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - BAR_GAP).toFixed(1)}" height="${height.toFixed(1)}"><title>${shortDay(language, day.day)}: ${labels[series]} ${count(language, day[series])}</title></rect>`;
    });
  });
  const first = days[0];
  const last = days.at(-1);
  const tableId = `usage-table-${key.id}`;
  return html`<section class="usage" aria-labelledby="usage-${key.id}">
<h2 id="usage-${key.id}">${t.usage.title}</h2>
<p>${t.usage.total(requests, rows)}</p>
<figure>
<p class="chart-scale" aria-hidden="true">${t.usage.scale(count(language, top))}</p>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-label="${t.usage.total(requests, rows)}" class="chart">
<line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}"></line>
${bars}
</svg>
<p class="chart-days" aria-hidden="true"><span>${first ? shortDay(language, first.day) : ''}</span><span>${last ? shortDay(language, last.day) : ''}</span></p>
<figcaption><ul class="legend">${SERIES.map(
    (series) =>
      html`<li><span class="swatch ${series}"></span>${labels[series]}${terms[series] ? html` <span class="term">(${terms[series]})</span>` : null}</li>`,
  )}</ul></figcaption>
</figure>
<p class="hint">${t.usage.note}</p>
${usageTable(context, tableId, days, labels)}
</section>`;
}
