import { createAccount, setAccountActive } from '../../accounts/accounts.service.ts';
import { unlockSignIn } from '../../portal/sign-in.ts';
import { type Command, required, withStore } from '../command.ts';

export const ACCOUNT_COMMANDS: Record<string, Command> = {
  'accounts create': {
    usage: 'accounts create --email E [--password P] [--must-change-password]',
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'must-change-password': { type: 'boolean' },
    },
    async run(context) {
      const password = context.values.password;
      const account = await withStore(context, (store) =>
        createAccount(store, context.clock, {
          email: required(context, 'email'),
          ...(typeof password === 'string' ? { password } : {}),
          mustChangePassword: context.values['must-change-password'] === true,
        }),
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
    usage: 'accounts unlock --email E',
    options: { email: { type: 'string' } },
    async run(context) {
      const result = await withStore(context, (store) =>
        unlockSignIn(store, context.clock, required(context, 'email')),
      );
      return { json: result, text: `unlocked ${result.email}` };
    },
  },
};
