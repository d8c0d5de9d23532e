/** Every path the OpenAPI document describes: the data API and the portal account API. */
export const API_PATHS = [
  '/developer/v1/campaigns',
  '/developer/v1/campaigns/{id}/summary',
  '/developer/v1/campaigns/{id}/respondents',
  '/developer/auth/login',
  '/developer/auth/verify-otp',
  '/developer/auth/forgot-password',
  '/developer/auth/reset-password',
  '/developer/auth/logout',
  '/developer/auth/step-up',
  '/developer/auth/me',
  '/developer/auth/change-password',
  '/developer/auth/devices',
  '/developer/auth/devices/{id}',
  '/developer/auth/keys',
  '/developer/auth/keys/{id}/reveal',
  '/developer/auth/keys/{id}/rotate',
] as const;
