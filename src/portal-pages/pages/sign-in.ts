import { codeField, field, form, submit } from '../forms.ts';
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

export function codePage(context: PageContext, state: { email: string; error?: string }): SafeHtml {
  const { t } = context;
  return layout(
    context,
    t.signIn.codeTitle,
    html`<p>${t.signIn.codeIntro(state.email)}</p>
${form(
  `${PORTAL_PATH}/sign-in/code`,
  csrfField(context),
  html`<input type="hidden" name="email" value="${state.email}">
${codeField(t.signIn.code, t.signIn.codeHint, state.error)}
<div class="field check"><input type="checkbox" id="field-remember" name="remember" value="1"><label for="field-remember">${t.signIn.remember}</label></div>
${submit(t.signIn.codeSubmit)}`,
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
  state: { email: string; codeError?: string; passwordError?: string; error?: string },
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
${codeField(t.signIn.code, t.signIn.codeHint, state.codeError, !state.passwordError)}
${field({ name: 'newPassword', label: t.password.new, type: 'password', autocomplete: 'new-password', hint: t.password.hint, minLength: 12, autofocus: Boolean(state.passwordError), ...(state.passwordError ? { error: state.passwordError } : {}) })}
${submit(t.forgot.submitReset)}`,
)}
${devMailLink(context)}`,
  );
}
