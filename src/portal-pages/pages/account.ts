import { dateTime } from '../format.ts';
import { field, form, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, layout, notice, type PageContext, PORTAL_PATH } from '../layout.ts';

export interface DeviceView {
  id: string;
  label: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

const at = (text: string | null) => (text === null ? null : Date.parse(text));

export function devicesPage(
  context: PageContext,
  devices: DeviceView[],
  state: { news?: string; error?: string } = {},
): SafeHtml {
  const { t, language } = context;
  const rows = devices.map(
    (device) => html`<tr>
<th scope="row">${device.label}</th>
<td>${dateTime(language, at(device.createdAt))}</td>
<td>${dateTime(language, at(device.lastUsedAt))}</td>
<td>${dateTime(language, at(device.expiresAt))}</td>
<td>${form(`${PORTAL_PATH}/devices/${device.id}/revoke`, csrfField(context), html`<button type="submit" class="danger" aria-label="${t.devices.revoke}: ${device.label}">${t.devices.revoke}</button>`)}</td>
</tr>`,
  );
  return layout(
    context,
    t.devices.title,
    html`${state.news ? notice('status', state.news) : null}
${state.error ? notice('alert', state.error) : null}
<p>${t.devices.intro}</p>
${
  devices.length === 0
    ? html`<p>${t.devices.none}</p>`
    : html`<div class="table-scroll"><table>
<thead><tr><th scope="col">${t.devices.label}</th><th scope="col">${t.devices.created}</th><th scope="col">${t.devices.lastUsed}</th><th scope="col">${t.devices.expires}</th><th scope="col"><span class="visually-hidden">${t.devices.revoke}</span></th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}`,
  );
}

export function passwordPage(
  context: PageContext,
  state: { news?: string; currentError?: string; newError?: string; error?: string } = {},
): SafeHtml {
  const { t, holder } = context;
  return layout(
    context,
    t.password.title,
    html`${holder?.limited ? notice('alert', t.password.mustChange) : null}
${state.news ? notice('status', state.news) : null}
${state.error ? notice('alert', state.error) : null}
${form(
  `${PORTAL_PATH}/password`,
  csrfField(context),
  html`<input type="text" name="username" value="${holder?.email ?? ''}" autocomplete="username" hidden>
${field({ name: 'currentPassword', label: t.password.current, type: 'password', autocomplete: 'current-password', autofocus: !state.newError, ...(state.currentError ? { error: state.currentError } : {}) })}
${field({ name: 'newPassword', label: t.password.new, type: 'password', autocomplete: 'new-password', hint: t.password.hint, minLength: 12, autofocus: Boolean(state.newError), ...(state.newError ? { error: state.newError } : {}) })}
${submit(t.password.submit)}`,
)}`,
  );
}

export function startPage(context: PageContext, baseUrl: string): SafeHtml {
  const { t } = context;
  const curl = `curl -H "Authorization: Bearer $HADIR_API_KEY" ${baseUrl}/developer/v1/campaigns`;
  return layout(
    context,
    t.start.title,
    html`<p>${t.start.intro}</p>
<ul>
<li><a href="/developer/v1/docs">${t.start.reference}</a></li>
<li><a href="/developer/v1/llms.txt">${t.start.llms}</a></li>
<li><a href="/developer/v1/skill.zip">${t.start.skill}</a></li>
</ul>
<p>${t.start.firstRequest}</p>
<pre><code>${curl}</code></pre>`,
  );
}

export interface MailView {
  to: string;
  subject: string;
  sentAt: number;
  text: string;
}

export function devMailPage(context: PageContext, mails: MailView[]): SafeHtml {
  const { t, language } = context;
  return layout(
    context,
    t.devMail.title,
    html`<p>${t.devMail.intro}</p>
${
  mails.length === 0
    ? html`<p>${t.devMail.none}</p>`
    : mails.map(
        (mail) => html`<article class="mail">
<h2>${mail.subject}</h2>
<dl>
<div><dt>${t.devMail.to}</dt><dd>${mail.to}</dd></div>
<div><dt>${t.devMail.sent}</dt><dd>${dateTime(language, mail.sentAt)}</dd></div>
</dl>
<pre>${mail.text}</pre>
</article>`,
      )
}`,
  );
}

export function problemPage(context: PageContext, title: string, message: string): SafeHtml {
  return layout(
    context,
    title,
    html`${notice('alert', message)}
<p><a href="${PORTAL_PATH}">${context.t.portalName}</a></p>`,
  );
}
