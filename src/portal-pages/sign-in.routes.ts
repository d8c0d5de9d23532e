import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { clientOf } from '../portal/portal.routes.ts';
import { codeOf, formOf, isNewPasswordRefusal, newPasswordOf } from './form-input.ts';
import { PORTAL_PATH } from './layout.ts';
import { pageErrorOf } from './page-errors.ts';
import type { PageKit } from './page-kit.ts';
import { problemPage } from './pages/account.ts';
import { codePage, forgotPage, linkResetPage, resetPage, signInPage } from './pages/sign-in.ts';

/** Signing in and out, and a forgotten password: the pages before there is a session. */
export function registerSignInRoutes(pages: FastifyInstance, kit: PageKit): void {
  const { portal, cookies } = kit;
  const signInPath = `${PORTAL_PATH}/sign-in`;
  const forgotPath = `${PORTAL_PATH}/forgot-password`;

  pages.get('/sign-in', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const context = kit.context(request, reply, signInPath);
    const news =
      query.done === 'reset'
        ? context.t.signIn.resetDone
        : query.done === 'signed-out'
          ? context.t.signIn.signedOut
          : query.done === 'ended'
            ? context.t.signIn.sessionEnded
            : undefined;
    return kit.send(reply, 200, signInPage(context, news ? { news } : {}));
  });

  pages.post('/sign-in', async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? '').trim();
    const context = kit.context(request, reply, signInPath);
    try {
      if (!email || !form.password) throw new ApiError('invalid_credentials', 'missing');
      const deviceToken = cookies.deviceToken(request);
      const result = await portal.login(
        { email, password: form.password, ...(deviceToken ? { deviceToken } : {}) },
        clientOf(request),
      );
      if (result.status === 'authenticated') {
        cookies.setSession(request, reply, result.session);
        return reply.redirect(PORTAL_PATH, 303);
      }
      return kit.send(reply, 200, codePage(context, { email, challenge: result.challenge }));
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.refuse(reply, error, signInPage(context, { email, error: message }));
    }
  });

  /** What the code page's two forms carry: the address, and the challenge login handed over. */
  const codeForm = (request: FastifyRequest, reply: FastifyReply) => {
    const form = formOf(request);
    return {
      form,
      email: (form.email ?? '').trim(),
      challenge: form.challenge ?? '',
      context: kit.context(request, reply, signInPath),
    };
  };

  pages.post('/sign-in/code', async (request, reply) => {
    const { form, email, challenge, context } = codeForm(request, reply);
    try {
      const code = codeOf(form.code);
      const result = await portal.verifyOtp(
        {
          email,
          code,
          rememberDevice: form.remember === '1',
          ...(challenge ? { challenge } : {}),
        },
        clientOf(request),
      );
      cookies.setSession(request, reply, result.session);
      if (result.trustedDevice) cookies.setDevice(request, reply, result.trustedDevice.token);
      return reply.redirect(PORTAL_PATH, 303);
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.refuse(
        reply,
        error,
        codePage(context, { email, challenge, code: form.code ?? '', error: message }),
      );
    }
  });

  pages.post('/sign-in/code/resend', async (request, reply) => {
    const { email, challenge, context } = codeForm(request, reply);
    try {
      await portal.resendSignInCode({ email, challenge }, clientOf(request));
      return kit.send(
        reply,
        200,
        codePage(context, { email, challenge, news: context.t.signIn.codeResent }),
      );
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.refuse(reply, error, codePage(context, { email, challenge, error: message }));
    }
  });

  pages.get('/forgot-password', async (request, reply) =>
    kit.send(reply, 200, forgotPage(kit.context(request, reply, forgotPath))),
  );

  pages.post('/forgot-password', async (request, reply) => {
    const email = (formOf(request).email ?? '').trim();
    const context = kit.context(request, reply, forgotPath);
    try {
      await portal.forgotPassword({ email }, clientOf(request));
      return kit.send(reply, 200, resetPage(context, { email }));
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.refuse(reply, error, forgotPage(context, { email, error: message }));
    }
  });

  /** A password set by a reset: whatever session this browser had is gone; sign in anew. */
  const resetDone = (request: FastifyRequest, reply: FastifyReply) => {
    cookies.clearSession(request, reply);
    return reply.redirect(`${signInPath}?done=reset`, 303);
  };

  pages.post('/reset-password', async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? '').trim();
    const context = kit.context(request, reply, forgotPath);
    try {
      const code = codeOf(form.code);
      const newPassword = newPasswordOf(form);
      await portal.resetPassword({ email, code, newPassword }, clientOf(request));
      return resetDone(request, reply);
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      const state = isNewPasswordRefusal(error)
        ? { passwordError: message, code: form.code ?? '' }
        : error instanceof ApiError && error.code === 'invalid_code'
          ? { codeError: message }
          : { error: message, code: form.code ?? '' };
      return kit.refuse(reply, error, resetPage(context, { email, ...state }));
    }
  });

  // The link in the reset mail: opening it spends nothing (mail scanners open links too); the
  // password is set by the form it shows.
  pages.get('/reset-password', async (request, reply) => {
    const token = (request.query as Record<string, string | undefined>).token ?? '';
    const context = kit.context(request, reply, forgotPath);
    if (!(await portal.resetLinkIsOpen(token))) {
      const t = context.t;
      return kit.send(reply, 410, problemPage(context, t.forgot.resetTitle, t.forgot.linkGone));
    }
    return kit.send(reply, 200, linkResetPage(context, { token }));
  });

  pages.post('/reset-password/link', async (request, reply) => {
    const form = formOf(request);
    const token = form.token ?? '';
    const context = kit.context(request, reply, forgotPath);
    try {
      const newPassword = newPasswordOf(form);
      await portal.resetPasswordWithLink({ token, newPassword }, clientOf(request));
      return resetDone(request, reply);
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      const state = isNewPasswordRefusal(error) ? { passwordError: message } : { error: message };
      return kit.refuse(reply, error, linkResetPage(context, { token, ...state }));
    }
  });

  pages.post('/sign-out', async (request, reply) => {
    const principal = await cookies.holder(request, portal);
    if (principal) await portal.logout(principal);
    cookies.clearSession(request, reply);
    return reply.redirect(`${signInPath}?done=signed-out`, 303);
  });
}
