import type {
  FastifyPluginAsyncTypebox,
  TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { errorResponses } from '../http/error-responses.ts';
import { bearerToken } from '../keys/key-format.ts';
import { coarseDeviceLabel } from './device-label.ts';
import {
  ChangePasswordBody,
  CodeSentResponse,
  DevicesResponse,
  ForgotPasswordBody,
  IdParams,
  KeysResponse,
  LoginBody,
  LoginResponse,
  MeResponse,
  PasswordChangedResponse,
  PasswordResetResponse,
  ResetPasswordBody,
  RevealResponse,
  RevokedResponse,
  RotateBody,
  RotateResponse,
  SignedOutResponse,
  StepUpBody,
  StepUpResponse,
  VerifyOtpBody,
  VerifyOtpResponse,
} from './portal.schemas.ts';
import type { ClientContext, PortalService, SessionPrincipal } from './portal.service.ts';

/** Portal request bodies are small; anything larger is refused before it is read. */
export const PORTAL_BODY_LIMIT_BYTES = 4 * 1024;

/** Where a portal request came from, for throttles and the audit log. */
export function clientOf(request: FastifyRequest, deviceLabel?: string): ClientContext {
  return {
    address: request.ip,
    deviceLabel: deviceLabel ?? coarseDeviceLabel(request.headers['user-agent']),
  };
}

/** OpenAPI metadata of a portal route; protected routes take the session as a bearer token. */
function doc<T extends object>(
  operationId: string,
  summary: string,
  description: string,
  schema: T,
  isProtected = true,
) {
  return {
    tags: ['Portal'],
    operationId,
    summary,
    description,
    ...(isProtected ? { security: [{ session: [] }] } : { security: [] }),
    ...schema,
  };
}

/** step-up and rotate take an optional body: no body at all means `{}`. */
async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}

function principalOf(request: FastifyRequest): SessionPrincipal {
  if (!request.principal) throw new ApiError('unauthorized', 'a valid session is required');
  return request.principal;
}

/** Spec, "Portal account endpoints", plus the key reveal and rotation that step-up guards. */
export function portalRoutes(portal: PortalService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/login',
      {
        schema: doc(
          'login',
          'Password login',
          'With a valid, unexpired deviceToken it returns a session; otherwise it e-mails a 6-digit code and answers a challenge to send back with it. A wrong password and an unknown e-mail answer the same 401 invalid_credentials, and the same 429 once an address has had 10 failed passwords in 15 minutes from one network. 403 account_locked only after the right password, when an operator must unlock the account.',
          {
            body: LoginBody,
            response: { 200: LoginResponse, ...errorResponses(400, 401, 403, 413, 429, 500, 503) },
          },
          false,
        ),
      },
      async (request) => portal.login(request.body, clientOf(request)),
    );

    app.post(
      '/verify-otp',
      {
        schema: doc(
          'verifyOtp',
          'Exchange the e-mailed code for a session',
          'With rememberDevice true it also issues a trusted-device token valid 30 days. Codes: 10 minutes, the newest replaces older ones. Send the challenge from login: with it a code has 5 tries that only this client can spend; without it, 3 tries shared with anyone, which never touch the 5.',
          {
            body: VerifyOtpBody,
            response: { 200: VerifyOtpResponse, ...errorResponses(400, 401, 413, 429, 500) },
          },
          false,
        ),
      },
      async (request) =>
        portal.verifyOtp(request.body, clientOf(request, request.body.deviceLabel)),
    );

    app.post(
      '/forgot-password',
      {
        schema: doc(
          'forgotPassword',
          'E-mail a password reset code',
          'Always answers code_sent, as fast for an unknown address as for a real one; the code (10 minutes, 5 tries) goes only to an address with an account. Redeem it with reset-password.',
          {
            body: ForgotPasswordBody,
            response: { 200: CodeSentResponse, ...errorResponses(400, 413, 429, 500) },
          },
          false,
        ),
      },
      async (request) => portal.forgotPassword(request.body, clientOf(request)),
    );

    app.post(
      '/reset-password',
      {
        schema: doc(
          'resetPassword',
          'Set a new password with the e-mailed reset code',
          'Ends every session and trusted device of the account, lifts a sign-in lock and mails a notice. A wrong, used or expired code answers 401 invalid_code; a refused password answers 400 and leaves the code unspent.',
          {
            body: ResetPasswordBody,
            response: { 200: PasswordResetResponse, ...errorResponses(400, 401, 413, 429, 500) },
          },
          false,
        ),
      },
      async (request) => portal.resetPassword(request.body, clientOf(request)),
    );

    await app.register(async (scope) => {
      const protectedRoutes = scope.withTypeProvider<TypeBoxTypeProvider>();
      // Before body validation, so a caller without a valid session learns that first.
      protectedRoutes.addHook('preValidation', async (request) => {
        request.principal = await portal.authenticateSession(
          bearerToken(request.headers.authorization),
        );
        if (
          request.principal.mustChangePassword &&
          !request.routeOptions.config.allowedBeforePasswordChange
        ) {
          throw new ApiError(
            'password_change_required',
            'change the password first: POST /developer/auth/change-password',
          );
        }
      });

      protectedRoutes.get(
        '/me',
        {
          schema: doc(
            'getMe',
            'The current session principal',
            'stepUpValidUntil is null when the session is not elevated.',
            {
              response: { 200: MeResponse, ...errorResponses(401, 500) },
            },
          ),
          config: { allowedBeforePasswordChange: true },
        },
        async (request) => portal.me(principalOf(request)),
      );

      protectedRoutes.post(
        '/logout',
        {
          schema: doc(
            'logout',
            'Sign out',
            'Ends the calling session; its token is refused from now on.',
            { response: { 200: SignedOutResponse, ...errorResponses(401, 500) } },
          ),
          config: { allowedBeforePasswordChange: true },
        },
        async (request) => portal.logout(principalOf(request)),
      );

      protectedRoutes.post(
        '/change-password',
        {
          schema: doc(
            'changePassword',
            'Change the password',
            "Clears mustChangePassword, ends every other session, revokes every trusted device, voids a pending reset code, mails the holder, and gives this session a new token (the answer's session.token; the old token is refused from now on). After 5 wrong current passwords the session ends (401): sign in again.",
            {
              body: ChangePasswordBody,
              response: { 200: PasswordChangedResponse, ...errorResponses(400, 401, 429, 500) },
            },
          ),
          config: { allowedBeforePasswordChange: true },
        },
        async (request) =>
          portal.changePassword(principalOf(request), request.body, clientOf(request)),
      );

      protectedRoutes.post(
        '/step-up',
        {
          schema: doc(
            'stepUp',
            'Request or redeem a step-up code',
            'Without a body (or without code) it e-mails a code bound to this session; with code it elevates the session for 10 minutes. Key reveal and rotation need it.',
            {
              body: StepUpBody,
              response: { 200: StepUpResponse, ...errorResponses(400, 401, 403, 429, 500, 503) },
            },
          ),
          preValidation: emptyBodyAsObject,
        },
        async (request) => {
          const code = request.body?.code;
          return code === undefined
            ? portal.requestStepUp(principalOf(request), clientOf(request))
            : portal.redeemStepUp(principalOf(request), code, clientOf(request));
        },
      );

      protectedRoutes.get(
        '/devices',
        {
          schema: doc('listDevices', 'List trusted devices', 'Never includes their tokens.', {
            response: { 200: DevicesResponse, ...errorResponses(401, 403, 500) },
          }),
        },
        async (request) => portal.listDevices(principalOf(request)),
      );

      protectedRoutes.delete(
        '/devices/:id',
        {
          schema: doc(
            'revokeDevice',
            'Revoke a trusted device',
            'Its next login needs an e-mailed code again.',
            {
              params: IdParams,
              response: { 200: RevokedResponse, ...errorResponses(401, 403, 404, 500) },
            },
          ),
        },
        async (request) =>
          portal.revokeDevice(principalOf(request), request.params.id, clientOf(request)),
      );

      protectedRoutes.get(
        '/keys',
        {
          schema: doc(
            'listKeys',
            "List the account's API keys",
            'Never the keys themselves: hint is their last 4 characters.',
            { response: { 200: KeysResponse, ...errorResponses(401, 403, 500) } },
          ),
        },
        async (request) => portal.listKeys(principalOf(request)),
      );

      protectedRoutes.post(
        '/keys/:id/reveal',
        {
          schema: doc(
            'revealKey',
            'Reveal a key once',
            'For a key the operator created with --reveal-in-portal; needs a step-up. 409 already_revealed after the first time.',
            {
              params: IdParams,
              response: { 200: RevealResponse, ...errorResponses(401, 403, 404, 409, 500) },
            },
          ),
        },
        async (request) =>
          portal.revealKey(principalOf(request), request.params.id, clientOf(request)),
      );

      protectedRoutes.post(
        '/keys/:id/rotate',
        {
          schema: doc(
            'rotateKey',
            'Rotate a key',
            'Needs a step-up. The new key has the same scope and allow-lists; the old one stays valid for overlapHours (0 to 168, default 24), never past its own expiry.',
            {
              params: IdParams,
              body: RotateBody,
              response: { 200: RotateResponse, ...errorResponses(400, 401, 403, 404, 409, 500) },
            },
          ),
          preValidation: emptyBodyAsObject,
        },
        async (request) =>
          portal.rotateKey(
            principalOf(request),
            request.params.id,
            request.body?.overlapHours ?? 24,
            clientOf(request),
          ),
      );
    });
  };
}
