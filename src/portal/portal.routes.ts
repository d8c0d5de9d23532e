import type {
  FastifyPluginAsyncTypebox,
  TypeBoxTypeProvider,
} from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { bearerToken } from '../keys/key-format.ts';
import { coarseDeviceLabel } from './device-label.ts';
import {
  ChangePasswordBody,
  IdParams,
  LoginBody,
  RotateBody,
  StepUpBody,
  VerifyOtpBody,
} from './portal.schemas.ts';
import type { ClientContext, PortalService, SessionPrincipal } from './portal.service.ts';

/** Portal request bodies are small; anything larger is refused before it is read. */
export const PORTAL_BODY_LIMIT_BYTES = 4 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: SessionPrincipal;
  }
  interface FastifyContextConfig {
    /** Routes a session may use while its account must change its password first. */
    allowedBeforePasswordChange?: boolean;
  }
}

function clientOf(request: FastifyRequest, deviceLabel?: string): ClientContext {
  return {
    address: request.ip,
    deviceLabel: deviceLabel ?? coarseDeviceLabel(request.headers['user-agent']),
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
    app.post('/login', { schema: { body: LoginBody } }, async (request) =>
      portal.login(request.body, clientOf(request)),
    );

    app.post('/verify-otp', { schema: { body: VerifyOtpBody } }, async (request) =>
      portal.verifyOtp(request.body, clientOf(request, request.body.deviceLabel)),
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
        { config: { allowedBeforePasswordChange: true } },
        async (request) => portal.me(principalOf(request)),
      );

      protectedRoutes.post(
        '/change-password',
        { schema: { body: ChangePasswordBody }, config: { allowedBeforePasswordChange: true } },
        async (request) =>
          portal.changePassword(principalOf(request), request.body, clientOf(request)),
      );

      protectedRoutes.post(
        '/step-up',
        { schema: { body: StepUpBody }, preValidation: emptyBodyAsObject },
        async (request) => {
          const code = request.body?.code;
          return code === undefined
            ? portal.requestStepUp(principalOf(request), clientOf(request))
            : portal.redeemStepUp(principalOf(request), code, clientOf(request));
        },
      );

      protectedRoutes.get('/devices', async (request) => portal.listDevices(principalOf(request)));

      protectedRoutes.delete('/devices/:id', { schema: { params: IdParams } }, async (request) =>
        portal.revokeDevice(principalOf(request), request.params.id, clientOf(request)),
      );

      protectedRoutes.get('/keys', async (request) => portal.listKeys(principalOf(request)));

      protectedRoutes.post('/keys/:id/reveal', { schema: { params: IdParams } }, async (request) =>
        portal.revealKey(principalOf(request), request.params.id, clientOf(request)),
      );

      protectedRoutes.post(
        '/keys/:id/rotate',
        { schema: { params: IdParams, body: RotateBody } },
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
