import { text } from 'node:stream/consumers';
import { createAccount, listAccounts, setAccountActive } from '../../accounts/accounts.service.ts';
import { resetPasswordByOperator } from '../../portal/password-reset.ts';
import { unlockSignIn } from '../../portal/sign-in.ts';
import { type Command, type Context, required, withStore } from '../command.ts';
import { counted } from '../plural.ts';
import { UsageError } from '../usage-error.ts';

/**
 * The password an operator chose, read from standard input with --password-stdin; undefined for
 * a generated one. On the command line it would stand in the process list and the shell history.
 */
async function passwordOption(context: Context): Promise<string | undefined> {
  if (context.values.password !== undefined) {
    throw new UsageError(
      '--password would leave the password in the process list and the shell history: pipe it with --password-stdin, or leave both out for a generated one',
    );
  }
  if (context.values['password-stdin'] !== true) return undefined;
  const password = (await text(context.io.stdin())).replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('--password-stdin read an empty password');
  return password;
}

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'accounts create': {
    summary:
      'Creates a portal account; prints a generated password once, unless one is piped with --password-stdin (12 to 72 characters, not a common password). --organisation names whom the holder acts for, as reports of disclosures name them.',
    example:
      'accounts create --email partner@example.com --organisation "PT Katering Nusantara" --must-change-password',
    usage:
      'accounts create --email E [--organisation NAME] [--password-stdin] [--must-change-password]',
    options: {
      email: { type: 'string' },
      organisation: { type: 'string' },
      // Accepted only to be refused with a reason (see passwordOption).
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'must-change-password': { type: 'boolean' },
    },
    async run(context) {
      const password = await passwordOption(context);
      const account = await withStore(
        context,
        (store) =>
          createAccount(store, context.clock, {
            email: required(context, 'email'),
            ...(typeof context.values.organisation === 'string'
              ? { organisation: context.values.organisation }
              : {}),
            ...(typeof password === 'string' ? { password } : {}),
            mustChangePassword: context.values['must-change-password'] === true,
          }),
        { ifMissing: 'create' },
      );
      const lines = [`created account ${account.email} (${account.id})`];
      if (account.generatedPassword) {
        lines.push(
          `password: ${account.generatedPassword}`,
          'it is shown this once; store it safely',
        );
      }
      return { json: account, text: lines.join('\n') };
    },
  },
  'accounts deactivate': {
    summary: 'Deactivates an account: its keys and sessions are refused from now on.',
    example: 'accounts deactivate --email partner@example.com',
    usage: 'accounts deactivate --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        setAccountActive(store, context.clock, required(context, 'email'), false),
      );
      return {
        json: result,
        text: `deactivated ${result.email}; its keys are refused from now on`,
      };
    },
  },
  'accounts reactivate': {
    summary: 'Reactivates a deactivated account.',
    example: 'accounts reactivate --email partner@example.com',
    usage: 'accounts reactivate --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        setAccountActive(store, context.clock, required(context, 'email'), true),
      );
      return { json: result, text: `reactivated ${result.email}` };
    },
  },
  'accounts unlock': {
    summary: "Lifts an account's sign-in lock and forgets its failed passwords.",
    example: 'accounts unlock --email partner@example.com',
    usage: 'accounts unlock --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        unlockSignIn(store, context.clock, required(context, 'email')),
      );
      return { json: result, text: `unlocked ${result.email}` };
    },
  },
  'accounts list': {
    summary: 'Lists the accounts with their state and how many live keys each holds.',
    example: 'accounts list',
    usage: 'accounts list',
    options: {},
    async run(context) {
      const accounts = await withStore(context, (store) => listAccounts(store, context.clock));
      const text = accounts
        .map(
          (account) =>
            `${account.email}  ${account.status}${account.mustChangePassword ? ' (must change password)' : ''}  ${counted(account.liveKeys, 'live key')}  created ${account.createdAt}`,
        )
        .join('\n');
      return { json: { accounts }, text: text || 'no accounts' };
    },
  },
  'accounts reset-password': {
    summary:
      'Sets a generated one-time password, to be changed at the next sign-in; ends every session and remembered device.',
    example: 'accounts reset-password --email partner@example.com',
    usage: 'accounts reset-password --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        resetPasswordByOperator(store, context.clock, required(context, 'email')),
      );
      return {
        json: result,
        text: [
          `reset the password of ${result.email}; every session and remembered device has ended`,
          `password: ${result.password}`,
          'it is shown this once; the holder must change it at the next sign-in',
        ].join('\n'),
      };
    },
  },
};
