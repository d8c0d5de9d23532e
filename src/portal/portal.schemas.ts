import { Type } from 'typebox';

/** Text without control characters: none belongs in an address, a label or an id. */
export const PLAIN_TEXT_PATTERN = '^[^\\u0000-\\u001f\\u007f]*$';

const Email = Type.String({
  minLength: 1,
  maxLength: 320,
  pattern: PLAIN_TEXT_PATTERN,
  description: 'The account e-mail address.',
});
const Challenge = Type.String({
  pattern: '^hadir_chl_[0-9a-f]{64}$',
  description:
    "The challenge login answered with: only the client that proved the password may spend all of the code's tries.",
});
const Code = Type.String({ pattern: '^\\d{6}$', description: 'The 6-digit code from the e-mail.' });

export const LoginBody = Type.Object(
  {
    email: Email,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    deviceToken: Type.Optional(
      Type.String({
        maxLength: 256,
        pattern: PLAIN_TEXT_PATTERN,
        description: 'A trusted-device token issued by verify-otp.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const VerifyOtpBody = Type.Object(
  {
    email: Email,
    code: Code,
    challenge: Type.Optional(Challenge),
    rememberDevice: Type.Optional(Type.Boolean({ default: false })),
    deviceLabel: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: PLAIN_TEXT_PATTERN,
        description: 'A coarse label, e.g. "Firefox on Linux".',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ForgotPasswordBody = Type.Object({ email: Email }, { additionalProperties: false });

export const ResetPasswordBody = Type.Object(
  {
    email: Email,
    code: Code,
    newPassword: Type.String({
      maxLength: 1024,
      description: '12 to 72 characters (Unicode code points after NFKC); not a common password.',
    }),
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
  { id: Type.String({ minLength: 1, maxLength: 100, pattern: PLAIN_TEXT_PATTERN }) },
  { additionalProperties: false },
);

export const RotateBody = Type.Object(
  { overlapHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 168, default: 24 })) },
  { additionalProperties: false },
);

const Instant = Type.String({ format: 'date-time' });
const Session = Type.Object(
  {
    token: Type.String({
      description: 'hadir_ses_ + 64 hex: send as Authorization: Bearer on protected calls.',
    }),
    expiresAt: Type.String({
      format: 'date-time',
      description: 'The absolute end (12 h); 30 idle minutes also end it.',
    }),
  },
  { additionalProperties: false },
);
const status = <T extends string>(value: T) => Type.Literal(value);

export const LoginResponse = Type.Union(
  [
    Type.Object(
      { status: status('code_sent'), challenge: Challenge },
      { additionalProperties: false },
    ),
    Type.Object(
      { status: status('authenticated'), session: Session },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'code_sent: a code went to the e-mail address; send challenge back with it to verify-otp. authenticated: the trusted device skipped the code.',
  },
);

export const VerifyOtpResponse = Type.Object(
  {
    session: Session,
    trustedDevice: Type.Optional(
      Type.Object(
        {
          id: Type.String(),
          token: Type.String({
            description: 'hadir_dev_ + 64 hex, shown once: send as deviceToken on later logins.',
          }),
          label: Type.String(),
          expiresAt: Instant,
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'A new session, and a trusted-device token when rememberDevice was true.',
  },
);

export const StepUpResponse = Type.Union(
  [
    Type.Object({ status: status('code_sent') }, { additionalProperties: false }),
    Type.Object(
      { status: status('verified'), validUntil: Instant },
      { additionalProperties: false },
    ),
  ],
  {
    description:
      'code_sent: a code went to the e-mail address; verified: the session is elevated until validUntil.',
  },
);

export const MeResponse = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    mustChangePassword: Type.Boolean(),
    stepUpValidUntil: Type.Union([Instant, Type.Null()]),
  },
  { additionalProperties: false, description: 'The signed-in account.' },
);

export const PasswordChangedResponse = Type.Object(
  { status: status('password_changed'), session: Session },
  {
    additionalProperties: false,
    description:
      'The password is changed; other sessions and trusted devices are gone, and this session continues under the new token in session (the old one is refused from now on).',
  },
);

export const DevicesResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          label: Type.String(),
          createdAt: Instant,
          lastUsedAt: Type.Union([Instant, Type.Null()]),
          expiresAt: Instant,
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: "The account's trusted devices, newest first." },
);

export const RevokedResponse = Type.Object(
  { status: status('revoked') },
  { additionalProperties: false, description: 'The device is revoked.' },
);

export const KeysResponse = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          hint: Type.String({ description: 'The last 4 characters of the key.' }),
          status: Type.Union([status('active'), status('revoked'), status('expired')]),
          createdAt: Instant,
          expiresAt: Instant,
          lastUsedAt: Type.Union([Instant, Type.Null()]),
          campaigns: Type.Array(
            Type.Object(
              { id: Type.String(), fields: Type.Array(Type.String()) },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: "The account's keys, without their secrets." },
);

export const RevealResponse = Type.Object(
  { key: Type.String() },
  { additionalProperties: false, description: 'The key, shown this once.' },
);

export const RotateResponse = Type.Object(
  { id: Type.String(), key: Type.String(), previousKeyValidUntil: Instant },
  {
    additionalProperties: false,
    description: 'The new key, shown this once, and when the old one stops working.',
  },
);

export const CodeSentResponse = Type.Object(
  { status: status('code_sent') },
  {
    additionalProperties: false,
    description:
      'The same answer whether or not the address has an account; a code goes to it when it has.',
  },
);

export const PasswordResetResponse = Type.Object(
  { status: status('password_reset') },
  {
    additionalProperties: false,
    description: 'The password is set; every session and trusted device of the account is gone.',
  },
);

export const SignedOutResponse = Type.Object(
  { status: status('signed_out') },
  { additionalProperties: false, description: 'The session has ended.' },
);
