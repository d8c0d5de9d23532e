import { codeField, field, form, newPasswordFields, submit } from '../forms.ts';
import { html, type SafeHtml } from '../html.ts';
import { csrfField, layout, notice, type PageContext, PORTAL_PATH } from '../layout.ts';

const devMailLink = (context: PageContext) =>
  context.devMailPath
    ? html`<p><a href="${context.devMailPath}" target="_blank" rel="noopener">${context.t.signIn.devMail}</a></p>`
    : null;

export function signInPage(
  context: PageContext,
  state: { email?: string; error?: string; news?: string } = {},
): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.signIn.title,
    html`${state.news ? notice('status', state.news) : null}
${state.error ? notice('alert', state.error) : null}
${form(
  `${PORTAL_PATH}/sign-in`,
  csrfField(context),
  html`${field({ name: 'email', label: t.signIn.email, type: 'email', autocomplete: 'username', value: state.email ?? '', autofocus: !state.email })}
${field({ name: 'password', label: t.signIn.password, type: 'password', autocomplete: 'current-password', autofocus: Boolean(state.email) })}
${submit(t.signIn.submit)}`,
)}
<p><a href="${PORTAL_PATH}/forgot-password">${t.signIn.forgot}</a></p>`,
  );
}

export function codePage(
  context: PageContext,
  state: { email: string; challenge: string; code?: string; error?: string; news?: string },
): SafeHtml {
  const { t } = context;
  const carried = html`<input type="hidden" name="email" value="${state.email}">
<input type="hidden" name="challenge" value="${state.challenge}">`;
  return layout(
    context,
    t.signIn.codeTitle,
    html`<p>${t.signIn.codeIntro(state.email)}</p>
${state.news ? notice('status', state.news) : null}
${form(
  `${PORTAL_PATH}/sign-in/code`,
  csrfField(context),
  html`${carried}
${codeField(t.signIn.code, t.signIn.codeHint, state.error, true, state.code)}
<div class="field check"><input type="checkbox" id="field-remember" name="remember" value="1"><label for="field-remember">${t.signIn.remember}</label></div>
${submit(t.signIn.codeSubmit)}`,
)}
${form(
  `${PORTAL_PATH}/sign-in/code/resend`,
  csrfField(context),
  html`${carried}
<p class="hint">${t.signIn.resendHint}</p>
${submit(t.signIn.resend, 'secondary')}`,
  'resend',
)}
${devMailLink(context)}
<p><a href="${PORTAL_PATH}/sign-in">${t.signIn.startOver}</a></p>`,
  );
}

export function forgotPage(context: PageContext, state: { email?: string; error?: string } = {}) {
  const { t } = context;
  return layout(
    context,
    t.forgot.title,
    html`<p>${t.forgot.intro}</p>
${state.error ? notice('alert', state.error) : null}
${form(
  `${PORTAL_PATH}/forgot-password`,
  csrfField(context),
  html`${field({ name: 'email', label: t.signIn.email, type: 'email', autocomplete: 'username', value: state.email ?? '', autofocus: true })}
${submit(t.forgot.submit)}`,
)}`,
  );
}

export function resetPage(
  context: PageContext,
  state: {
    email: string;
    code?: string;
    codeError?: string;
    passwordError?: string;
    error?: string;
  },
): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.forgot.resetTitle,
    html`<p>${t.forgot.resetIntro(state.email)}</p>
${state.error ? notice('alert', state.error) : null}
${form(
  `${PORTAL_PATH}/reset-password`,
  csrfField(context),
  html`<input type="hidden" name="email" value="${state.email}">
<input type="text" name="username" value="${state.email}" autocomplete="username" hidden>
${codeField(t.signIn.code, t.signIn.codeHint, state.codeError, !state.passwordError, state.code)}
${newPasswordFields(context, state.passwordError, Boolean(state.passwordError))}
${submit(t.forgot.submitReset)}`,
)}
${devMailLink(context)}`,
  );
}

/** The page the reset mail's link opens: only the new password is asked for. */
export function linkResetPage(
  context: PageContext,
  state: { token: string; passwordError?: string; error?: string },
): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.forgot.resetTitle,
    html`<p>${t.forgot.linkIntro}</p>
${state.error ? notice('alert', state.error) : null}
${form(
  `${PORTAL_PATH}/reset-password/link`,
  csrfField(context),
  html`<input type="hidden" name="token" value="${state.token}">
${newPasswordFields(context, state.passwordError, true)}
${submit(t.forgot.submitReset)}`,
)}`,
  );
}
