import { Type } from '@sinclair/typebox';

const Email = Type.String({
  minLength: 1,
  maxLength: 320,
  description: 'The account e-mail address.',
});
const Code = Type.String({ pattern: '^\\d{6}$', description: 'The 6-digit code from the e-mail.' });

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    deviceToken: Type.Optional(
      Type.String({ maxLength: 256, description: 'A trusted-device token issued by verify-otp.' }),
    ),
  },
  { additionalProperties: false },
);

export const VerifyOtpBody = Type.Object(
  {
    email: Email,
    code: Code,
    rememberDevice: Type.Optional(Type.Boolean({ default: false })),
    deviceLabel: Type.Optional(
      Type.String({ maxLength: 200, description: 'A coarse label, e.g. "Firefox on Linux".' }),
    ),
  },
  { additionalProperties: false },
);

export const StepUpBody = Type.Object(
  { code: Type.Optional(Code) },
  { additionalProperties: false },
);

export const ChangePasswordBody = Type.Object(
  {
    currentPassword: Type.String({ minLength: 1, maxLength: 1024 }),
    newPassword: Type.String({
      maxLength: 1024,
      description: '12 to 72 characters (Unicode code points after NFKC); not a common password.',
    }),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const RotateBody = Type.Object(
  { overlapHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 168, default: 24 })) },
  { additionalProperties: false },
);
