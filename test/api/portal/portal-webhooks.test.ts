import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEndpoint } from '../../../src/notifications/endpoints.service.ts';
import { webhookSealKey } from '../../../src/notifications/signing.ts';
import type { Resolver } from '../../../src/notifications/webhook-sender.ts';
import { TEST_SECRETS, type TestApp } from '../../helpers/app.ts';
import { seedWeddingCampaign } from '../../helpers/factories.ts';
import { keyPageHolder } from '../../helpers/page-browser.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';

/** The names these tests know; any other is not found. No test asks a real resolver. */
const HOSTS: Record<string, string> = {
  'hooks.partner-a.example': '93.184.215.14',
  'intern.partner.example': '10.0.0.5',
  'metadata.partner.example': '169.254.169.254',
};
const RESOLVE: Resolver = async (host) => {
  const address = HOSTS[host];
  if (!address)
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};
const URL_A = 'https://hooks.partner-a.example/in';

describe.each(ENGINES)('notification endpoints on the portal pages, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ t, smtp, close } = await startMailingApp(engine, { resolveWebhookHost: RESOLVE }));
    await seedWeddingCampaign(t.store, t.clock);
  });
  afterAll(() => close());

  const holder = (name: string) => keyPageHolder(t, smtp, name);

  /** An endpoint the operator added for a key (no step-up: the CLI's path). */
  const operatorEndpoint = (keyId: string, url: string) =>
    addEndpoint(
      {
        store: t.store,
        clock: t.clock,
        sealKey: webhookSealKey(TEST_SECRETS.keySealKey),
        allowPrivateNetworks: false,
        actor: 'operator',
      },
      { keyId, url },
    );

  it('adds an endpoint only after a step-up code, and shows its secret once', async () => {
    const a = await holder(`webhooks-a-${engine}`);
    expect(a.page.body).toContain('Change notifications');
    const mails = smtp.messages.length;
    const asked = await a.browser.post(`${PORTAL}/keys/${a.keyId}/webhooks`, {
      _csrf: a.csrf,
      url: URL_A,
      'event-respondents-changed': '1',
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('Confirm it is you');
    expect(asked.field('url')).toBe(URL_A);
    expect(await t.store.db.selectFrom('webhook_endpoints').selectAll().execute()).toHaveLength(0);

    const wrong = await a.browser.post(`${PORTAL}/keys/${a.keyId}/webhooks`, {
      _csrf: asked.csrf as string,
      url: URL_A,
      'event-respondents-changed': '1',
      code: '000000',
    });
    expect(wrong.status).toBe(401);
    expect(await t.store.db.selectFrom('webhook_endpoints').selectAll().execute()).toHaveLength(0);

    const code = await smtp.codeFor(a.email, mails > 0 ? 0 : 0);
    const shown = await a.browser.post(`${PORTAL}/keys/${a.keyId}/webhooks`, {
      _csrf: wrong.csrf as string,
      url: URL_A,
      'event-respondents-changed': '1',
      code,
    });
    expect(shown.status).toBe(200);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown.body)?.[0];
    expect(secret).toBeDefined();
    const [row] = await t.store.db.selectFrom('webhook_endpoints').selectAll().execute();
    expect(row).toMatchObject({ url: URL_A, event_types: '["respondents.changed"]' });
    // Never again: not on the key page, not in the audit log.
    const again = await a.browser.get(`${PORTAL}/keys/${a.keyId}`);
    expect(again.body).toContain(URL_A);
    expect(again.body).not.toContain(secret);
    const audit = await t.store.db.selectFrom('audit_log').select('details').execute();
    expect(JSON.stringify(audit)).not.toContain((secret as string).slice(6));
  });

  it("refuses every action on another holder's key and endpoints, and changes nothing", async () => {
    const owner = await holder(`webhooks-owner-${engine}`);
    const { endpoint } = await operatorEndpoint(owner.keyId, 'https://owner.example/in');
    const stranger = await holder(`webhooks-stranger-${engine}`);
    const base = `${PORTAL}/keys/${owner.keyId}/webhooks`;
    for (const path of [
      '',
      `/${endpoint.id}/test`,
      `/${endpoint.id}/disable`,
      `/${endpoint.id}/remove`,
      `/${endpoint.id}/rotate`,
      `/${endpoint.id}/redeliver`,
    ]) {
      const answer = await stranger.browser.post(`${base}${path}`, {
        _csrf: stranger.csrf,
        url: URL_A,
      });
      expect(answer.status, path).toBe(404);
    }
    // Through the stranger's own key, the owner's endpoint is not found either.
    const crossed = await stranger.browser.post(
      `${PORTAL}/keys/${stranger.keyId}/webhooks/${endpoint.id}/disable`,
      { _csrf: stranger.csrf },
    );
    expect(crossed.status).toBe(404);
    expect((await stranger.browser.get(`${base}/${endpoint.id}`)).status).toBe(404);
    const row = await t.store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.disabled_at).toBeNull();
    expect(await t.store.db.selectFrom('webhook_deliveries').selectAll().execute()).toHaveLength(0);
  });

  it('removes an endpoint only once the holder confirms, having said what it does', async () => {
    const owner = await holder(`webhooks-remove-${engine}`);
    const { endpoint } = await operatorEndpoint(owner.keyId, URL_A);
    const path = `${PORTAL}/keys/${owner.keyId}/webhooks/${endpoint.id}/remove`;
    const remaining = () =>
      t.store.db
        .selectFrom('webhook_endpoints')
        .select('id')
        .where('id', '=', endpoint.id)
        .execute();
    const asked = await owner.browser.post(path, { _csrf: owner.csrf });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain(URL_A);
    expect(asked.body).toContain('name="confirmed" value="1"');
    expect(await remaining()).toHaveLength(1);
    const done = await owner.browser.post(path, { _csrf: asked.csrf as string, confirmed: '1' });
    expect(done.status).toBe(303);
    expect(await remaining()).toHaveLength(0);
  });

  it('sends one test event per endpoint every 10 seconds, and says when the next may go', async () => {
    const a = await holder(`webhooks-test-${engine}`);
    const { endpoint } = await operatorEndpoint(a.keyId, 'https://tester.example/in');
    const test = () =>
      a.browser.post(`${PORTAL}/keys/${a.keyId}/webhooks/${endpoint.id}/test`, {
        _csrf: a.csrf,
      });
    expect((await test()).status).toBe(303);
    const soon = await test();
    expect(soon.status).toBe(429);
    expect(soon.headers['retry-after']).toBe('10');
    expect(soon.body).toContain('A test event was just sent to this endpoint');
    t.clock.advance(10_000);
    expect((await test()).status).toBe(303);
    const queued = await t.store.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(queued).toHaveLength(2);
  });

  it('mails no step-up code for a key that does not exist, or is not the holder’s', async () => {
    const a = await holder(`webhooks-reveal-${engine}`);
    const other = await holder(`webhooks-reveal-other-${engine}`);
    const mails = smtp.messages.length;
    for (const keyId of ['no-such-key', other.keyId]) {
      for (const action of ['reveal', 'rotate']) {
        const answer = await a.browser.post(`${PORTAL}/keys/${keyId}/${action}`, {
          _csrf: a.csrf,
          confirmed: '1',
        });
        expect(answer.status, `${action} ${keyId}`).toBe(404);
      }
    }
    // A key of the holder's that was never issued for reveal: said on its page, no code.
    const own = await a.browser.post(`${PORTAL}/keys/${a.keyId}/reveal`, { _csrf: a.csrf });
    expect(own.status).toBe(409);
    expect(smtp.messages.length).toBe(mails);
  });

  it('refuses an address notifications may not reach, at its field, before any code', async () => {
    const a = await holder(`webhooks-refused-${engine}`);
    const mails = smtp.messages.length;
    for (const url of [
      'http://partner.example/in',
      'https://127.0.0.1/in',
      'https://[::ffff:10.0.0.1]/in',
      'https://[::ffff:0:7f00:1]/in',
      'https://localhost/in',
      'https://ｌｏｃａｌｈｏｓｔ/in',
      'https://intern.partner.example/in',
      'https://metadata.partner.example/in',
      'not a url',
    ]) {
      const refused = await a.browser.post(`${PORTAL}/keys/${a.keyId}/webhooks`, {
        _csrf: a.csrf,
        url,
      });
      expect(refused.status, url).toBe(400);
      expect(refused.body).toContain('cannot receive notifications');
      expect(refused.body).toContain('aria-invalid="true"');
    }
    expect(smtp.messages.length).toBe(mails);
  });
});
