import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { PasswordRuleError } from '../portal/password-change.ts';
import { clientOf } from '../portal/portal.routes.ts';
import { codeOf, formOf, statusOf } from './form-input.ts';
import { PORTAL_PATH } from './layout.ts';
import { pageErrorOf } from './page-errors.ts';
import type { PageKit } from './page-kit.ts';
import { codePage, forgotPage, resetPage, signInPage } from './pages/sign-in.ts';

/** Signing in and out, and a forgotten password: the pages before there is a session. */
export function registerSignInRoutes(pages: FastifyInstance, kit: PageKit): void {
  const { portal, cookies } = kit;
  const signInPath = `${PORTAL_PATH}/sign-in`;

  pages.get('/sign-in', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const context = kit.context(request, reply, signInPath);
    const news =
      query.done === 'reset'
        ? context.t.signIn.resetDone
        : query.done === 'signed-out'
          ? context.t.signIn.signedOut
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
        cookies.setSession(reply, result.session);
        return reply.redirect(`${PORTAL_PATH}/keys`, 303);
      }
      return kit.send(reply, 200, codePage(context, { email }));
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.send(reply, statusOf(error), signInPage(context, { email, error: message }));
    }
  });

  pages.post('/sign-in/code', async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? '').trim();
    const context = kit.context(request, reply, signInPath);
    try {
      const code = codeOf(form.code);
      const result = await portal.verifyOtp(
        { email, code, rememberDevice: form.remember === '1' },
        clientOf(request),
      );
      cookies.setSession(reply, result.session);
      if (result.trustedDevice) cookies.setDevice(reply, result.trustedDevice.token);
      return reply.redirect(`${PORTAL_PATH}/keys`, 303);
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.send(reply, statusOf(error), codePage(context, { email, error: message }));
    }
  });

  pages.get('/forgot-password', async (request, reply) =>
    kit.send(reply, 200, forgotPage(kit.context(request, reply, `${PORTAL_PATH}/forgot-password`))),
  );

  pages.post('/forgot-password', async (request, reply) => {
    const email = (formOf(request).email ?? '').trim();
    const context = kit.context(request, reply, `${PORTAL_PATH}/forgot-password`);
    try {
      await portal.forgotPassword({ email }, clientOf(request));
      return kit.send(reply, 200, resetPage(context, { email }));
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      return kit.send(reply, statusOf(error), forgotPage(context, { email, error: message }));
    }
  });

  pages.post('/reset-password', async (request, reply) => {
    const form = formOf(request);
    const email = (form.email ?? '').trim();
    const context = kit.context(request, reply, `${PORTAL_PATH}/forgot-password`);
    try {
      const code = codeOf(form.code);
      await portal.resetPassword(
        { email, code, newPassword: form.newPassword ?? '' },
        clientOf(request),
      );
      cookies.clearSession(reply);
      return reply.redirect(`${signInPath}?done=reset`, 303);
    } catch (error) {
      const message = pageErrorOf(error, context.t);
      const state =
        error instanceof PasswordRuleError
          ? { passwordError: message }
          : error instanceof ApiError && error.code === 'invalid_code'
            ? { codeError: message }
            : { error: message };
      return kit.send(reply, statusOf(error), resetPage(context, { email, ...state }));
    }
  });

  pages.post('/sign-out', async (request, reply) => {
    const principal = await cookies.holder(request, portal);
    if (principal) await portal.logout(principal);
    cookies.clearSession(reply);
    return reply.redirect(`${signInPath}?done=signed-out`, 303);
  });
}
