import { type Fragment, html, type SafeHtml } from './html.ts';
import type { Language, Messages } from './messages.ts';

export const PORTAL_PATH = '/developer/portal';
export const ASSETS_PATH = `${PORTAL_PATH}/assets`;

/** What every page knows about the request it answers. */
export interface PageContext {
  language: Language;
  t: Messages;
  /** The CSRF token every state-changing form carries. */
  csrfToken: string;
  /** The signed-in holder, when there is one; `limited` while a password change is due. */
  holder?: { email: string; limited: boolean };
  /** A GET address of this page, where a language switch returns to. */
  here: string;
  /** The development mailbox's address, when this server has one. */
  devMailPath?: string;
}

export function csrfField(context: PageContext): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${context.csrfToken}">`;
}

function navigation(context: PageContext): Fragment {
  const { t, holder } = context;
  if (!holder) return null;
  const links = holder.limited
    ? []
    : [
        ['guest-lists', t.nav.guestLists],
        ['keys', t.nav.keys],
        ['devices', t.nav.devices],
        ['password', t.nav.password],
        ['start', t.nav.start],
      ];
  return html`<nav aria-label="${t.nav.label}">
  <ul>${links.map(
    ([path, label]) =>
      html`<li><a href="${PORTAL_PATH}/${path as string}"${context.here === `${PORTAL_PATH}/${path}` ? html` aria-current="page"` : ''}>${label as string}</a></li>`,
  )}</ul>
  <form method="post" action="${PORTAL_PATH}/sign-out" class="sign-out">${csrfField(context)}
    <span class="who">${t.signedInAs(holder.email)}</span>
    <button type="submit" class="link">${t.nav.signOut}</button>
  </form>
</nav>`;
}

/** A notice above the page's content: `status` for news, `alert` for what went wrong. */
export function notice(kind: 'status' | 'alert', text: Fragment): SafeHtml {
  return html`<p class="notice ${kind}" role="${kind}">${text}</p>`;
}

/** The page around every portal screen: language, skip link, navigation, one h1. */
export function layout(context: PageContext, title: string, body: Fragment): SafeHtml {
  const { t, language } = context;
  const other: Language = language === 'id' ? 'en' : 'id';
  const switchHref = `${PORTAL_PATH}/language?to=${other}&back=${encodeURIComponent(context.here)}`;
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${t.portalName}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS_PATH}/portal.css">
<script src="${ASSETS_PATH}/portal.js" defer></script>
</head>
<body>
<a class="skip" href="#main">${t.skipToContent}</a>
<header>
  <p class="brand"><a href="${PORTAL_PATH}">${t.portalName}</a></p>
  <a class="language" href="${switchHref}" lang="${other}" hreflang="${other}">${t.switchLanguage}</a>
  ${navigation(context)}
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}
