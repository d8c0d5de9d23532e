import { createHolderExports } from './holder-exports.ts';
import { createHolderKeys } from './holder-keys.ts';
import { createHolderWebhooks } from './holder-webhooks.ts';
import { createCodes } from './one-time-codes.ts';
import { createPasswordChange } from './password-change.ts';
import { createPasswordReset } from './password-reset.ts';
import { auditEvents, type PortalDeps } from './portal-context.ts';
import { createSessions } from './sessions.ts';
import { createSignIn } from './sign-in.ts';
import { createStepUp } from './step-up.ts';
import { createThrottles } from './throttles.ts';
import { createTrustedDevices } from './trusted-devices.ts';

export type { ClientContext, PortalDeps, PortalSettings } from './portal-context.ts';
export type { SessionPrincipal } from './sessions.ts';

/**
 * The portal account API of spec, "Portal account endpoints", framework-free: its parts, each of
 * one concern, put together. Every route calls exactly one of these.
 */
export function createPortalService(deps: PortalDeps) {
  const audit = auditEvents(deps);
  const throttles = createThrottles(deps);
  const codes = createCodes(deps, audit, throttles);
  const sessions = createSessions(deps);
  const devices = createTrustedDevices(deps, audit);
  const signIn = createSignIn(deps, { audit, throttles, codes, sessions, devices });
  const stepUp = createStepUp(deps, codes, audit);
  const keys = createHolderKeys(deps, audit);
  const webhooks = createHolderWebhooks(deps, audit);
  const exports = createHolderExports(deps);
  const reset = createPasswordReset(deps, { audit, throttles, codes });
  return {
    login: signIn.login,
    verifyOtp: signIn.verifyOtp,
    resendSignInCode: signIn.resendCode,
    forgotPassword: reset.forgot,
    resetPassword: reset.reset,
    resetPasswordWithLink: reset.resetWithLink,
    resetLinkIsOpen: reset.resetLinkIsOpen,
    authenticateSession: sessions.authenticate,
    me: sessions.me,
    logout: sessions.end,
    requestStepUp: stepUp.request,
    redeemStepUp: stepUp.redeem,
    changePassword: createPasswordChange(deps, audit),
    listDevices: devices.list,
    revokeDevice: devices.revoke,
    listKeys: keys.list,
    keyOverview: keys.overview,
    guestLists: keys.guestLists,
    revealKey: keys.reveal,
    rotateKey: keys.rotate,
    webhooks,
    exports,
    /** Waits for work that outlives its request (reset codes sent after their answer). */
    settle: reset.settle,
  };
}

export type PortalService = ReturnType<typeof createPortalService>;
