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

/**
 * A key's requests per day as stacked bars (answered, 304, 429, errors), drawn on the server so
 * it shows with JavaScript off, with the same figures in a table for screen readers and for
 * anyone who wants the numbers.
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
  return html`<section class="usage" aria-labelledby="usage-${key.id}">
<h3 id="usage-${key.id}">${t.usage.title}<span class="visually-hidden">: ${key.name} …${key.hint}</span></h3>
<p>${t.usage.total(requests, rows)}</p>
<figure>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT + 16}" role="img" aria-label="${t.usage.total(requests, rows)}" class="chart">
<line class="axis" x1="0" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}"></line>
${bars}
<text class="tick" x="0" y="${HEIGHT + 13}">${first ? shortDay(language, first.day) : ''}</text>
<text class="tick" x="${WIDTH}" y="${HEIGHT + 13}" text-anchor="end">${last ? shortDay(language, last.day) : ''}</text>
<text class="tick" x="2" y="10">${count(language, top)}</text>
</svg>
<figcaption><ul class="legend">${SERIES.map((series) => html`<li><span class="swatch ${series}"></span>${labels[series]}</li>`)}</ul></figcaption>
</figure>
<p class="hint">${t.usage.note}</p>
<details>
<summary>${t.usage.asTable}</summary>
<div class="table-scroll"><table>
<thead><tr><th scope="col">${t.usage.day}</th>${SERIES.map((series) => html`<th scope="col">${labels[series]}</th>`)}<th scope="col">${t.usage.rows}</th></tr></thead>
<tbody>${days.map(
    (day) =>
      html`<tr><th scope="row">${shortDay(language, day.day)}</th>${SERIES.map((series) => html`<td>${count(language, day[series])}</td>`)}<td>${count(language, day.rows)}</td></tr>`,
  )}</tbody>
</table></div>
</details>
</section>`;
}
