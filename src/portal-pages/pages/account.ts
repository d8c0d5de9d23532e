import {
  type ClientPackage,
  type OfferedPackage,
  PACKAGES_PATH,
} from '../../client-packages/client-packages.ts';
import { dateTime } from '../format.ts';
import { field, form, newPasswordFields, submit } from '../forms.ts';
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
${newPasswordFields(context, state.newError, Boolean(state.newError))}
${submit(t.password.submit)}`,
)}`,
  );
}

/** A few lines to copy, with a copy button where the browser allows it. */
function snippet(context: PageContext, id: string, label: string, text: string): SafeHtml {
  const { t } = context;
  return html`<div class="snippet">
<p id="${id}-label">${label}</p>
<pre><code id="${id}">${text}</code></pre>
<button type="button" class="secondary copy" data-copy="${id}" data-copied="${t.keys.copied}" aria-describedby="${id}-label" hidden>${t.keys.copy}</button>
</div>`;
}

/** The one-line install of a package and the tarballs it needs, from this server. */
function installLine(
  baseUrl: string,
  packages: ClientPackage[],
  wanted: OfferedPackage,
): string | undefined {
  const needed = packages.filter(
    (offered) => offered.package === 'client' || offered.package === wanted,
  );
  if (!needed.some((offered) => offered.package === wanted)) return undefined;
  return `npm install ${needed.map((offered) => `${baseUrl}${PACKAGES_PATH}/${offered.file}`).join(' \\\n  ')}`;
}

export function startPage(
  context: PageContext,
  baseUrl: string,
  packages: ClientPackage[],
): SafeHtml {
  const { t } = context;
  const install = (id: string, wanted: OfferedPackage) => {
    const line = installLine(baseUrl, packages, wanted);
    return line === undefined
      ? html`<p>${t.start.notBuilt}</p>`
      : snippet(context, `${id}-install`, t.start.install, line);
  };
  const curl = `export HADIR_API_KEY=hadir_sk_…   # ${t.start.yourKey}
curl -H "Authorization: Bearer $HADIR_API_KEY" ${baseUrl}/developer/v1/campaigns`;
  const sdk = `import { HadirClient } from '@hadir/client';
const hadir = new HadirClient({ baseUrl: '${baseUrl}', apiKey: process.env.HADIR_API_KEY });
for await (const row of hadir.respondents('CAMPAIGN_ID')) console.log(row.id, row.fields);`;
  const sync = `export HADIR_API_KEY=hadir_sk_…   # ${t.start.yourKey}
npx hadir-sync --base-url ${baseUrl} --api-key-env HADIR_API_KEY --all \\
  --to sqlite:./mirror.sqlite --export csv ./respondents.csv`;
  const syncOlder = `npx hadir-sync --base-url ${baseUrl} --api-key-env HADIR_API_KEY --all \\
  --to postgres://localhost/hadir_mirror --export csv ./respondents.csv`;
  // The installed hadir-mcp prints its own entry, with absolute paths: agent hosts start
  // servers from a folder of their own, where npx would not find it.
  const mcp = `HADIR_BASE_URL=${baseUrl} npx --no hadir-mcp print-config`;
  // The hosted endpoint: a URL and the key as a header read from the environment, per host.
  const hostedUrl = `${baseUrl}/developer/mcp`;
  // The host reads the key from the environment: its own placeholder, written out as text.
  const keyFromEnvironment = `Bearer ${'$'}{env:HADIR_API_KEY}`;
  const claudeCode = `claude mcp add --transport http hadir ${hostedUrl} \\
  --header "Authorization: Bearer $HADIR_API_KEY"`;
  const cursor = JSON.stringify(
    {
      mcpServers: {
        hadir: { url: hostedUrl, headers: { Authorization: keyFromEnvironment } },
      },
    },
    null,
    2,
  );
  const vscode = JSON.stringify(
    {
      servers: {
        hadir: {
          type: 'http',
          url: hostedUrl,
          headers: { Authorization: keyFromEnvironment },
        },
      },
    },
    null,
    2,
  );
  return layout(
    context,
    t.start.title,
    html`<p>${t.start.intro}</p>
<ul>
<li><a href="/developer/v1/docs">${t.start.reference}</a></li>
<li><a href="/developer/v1/llms.txt">${t.start.llms}</a></li>
<li><a href="/developer/v1/skill.zip">${t.start.skill}</a></li>
</ul>
<h2>${t.start.curlTitle}</h2>
${snippet(context, 'start-curl', t.start.firstRequest, curl)}
<h2>${t.start.sdkTitle}</h2>
${install('start-sdk', 'client')}
${snippet(context, 'start-sdk', t.start.sdk, sdk)}
<h2>${t.start.syncTitle}</h2>
${install('start-sync', 'sync')}
${snippet(context, 'start-sync', t.start.sync, sync)}
${snippet(context, 'start-sync-older', t.start.syncOlderNode, syncOlder)}
<h2>${t.start.mcpTitle}</h2>
<p>${t.start.mcpHosted}</p>
${snippet(context, 'start-mcp-claude-code', 'Claude Code', claudeCode)}
${snippet(context, 'start-mcp-cursor', 'Cursor (.cursor/mcp.json)', cursor)}
${snippet(context, 'start-mcp-vscode', 'VS Code (.vscode/mcp.json)', vscode)}
${install('start-mcp', 'mcp')}
${snippet(context, 'start-mcp', t.start.mcp, mcp)}`,
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

/** An address with nothing behind it: said plainly, with the way back. */
export function notFoundPage(context: PageContext): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.notFound.title,
    html`<p>${t.notFound.text}</p>
<p><a href="${PORTAL_PATH}">${context.holder ? t.notFound.backToKeys : t.notFound.backToSignIn}</a></p>`,
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
