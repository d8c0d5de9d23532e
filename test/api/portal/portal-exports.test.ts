import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { exportWorld } from '../../helpers/export-world.ts';
import { seedWeddingCampaign } from '../../helpers/factories.ts';
import { keyPageHolder } from '../../helpers/page-browser.ts';
import { S3_CREDENTIALS, startS3Server, type TestS3 } from '../../helpers/s3-server.ts';
import { startMailingApp, type TestSmtpServer } from '../../helpers/smtp.ts';
import { ENGINES } from '../../helpers/stores.ts';

const PORTAL = '/developer/portal';

describe.each(ENGINES)('deliveries to a bucket on the key page, on %s', (engine) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let s3: TestS3;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // The local bucket is on 127.0.0.1, which a holder's delivery may reach only here.
    ({ t, smtp, close } = await startMailingApp(engine, { webhooksAllowPrivateNetworks: true }));
    s3 = await startS3Server(['partner']);
    await seedWeddingCampaign(t.store, t.clock);
  });
  afterAll(async () => {
    await close();
    await s3.close();
  });

  const holder = (name: string) => keyPageHolder(t, smtp, name);

  const form = (extra: Record<string, string> = {}) => ({
    to: 's3://partner/caterer',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    accessKeyId: S3_CREDENTIALS.accessKeyId,
    secretAccessKey: S3_CREDENTIALS.secretAccessKey,
    every: '1d',
    at: '06:00',
    'format-csv': '1',
    'format-parquet': '1',
    keep: '7',
    ...extra,
  });

  it('opens the form after a step-up, sets a delivery up, shows its failure in words, removes it', async () => {
    const a = await holder(`exports-a-${engine}`);
    expect(a.page.body).toContain('Deliveries to a bucket');
    expect(a.page.body).not.toContain('name="secretAccessKey"');
    const path = `${PORTAL}/keys/${a.keyId}/exports`;

    // Without a step-up nothing is set up, whatever is posted.
    const early = await a.browser.post(path, { _csrf: a.page.csrf as string, ...form() });
    expect(early.body).toContain('Your confirmation has expired');
    expect(await t.store.db.selectFrom('exports').selectAll().execute()).toHaveLength(0);

    const before = smtp.messages.length;
    const asked = await a.browser.post(`${path}/setup`, { _csrf: early.csrf as string });
    expect(asked.body).toContain('To set up a delivery, enter the code');
    const opened = await a.browser.post(`${path}/setup`, {
      _csrf: asked.csrf as string,
      code: await smtp.codeFor(a.email, before),
    });
    expect(opened.status).toBe(303);
    const page = await a.browser.get(`${PORTAL}/keys/${a.keyId}`);
    expect(page.body).toContain('name="secretAccessKey"');

    // A refusal keeps what was typed, but never the secret key.
    const refused = await a.browser.post(path, {
      _csrf: page.csrf as string,
      ...form({ to: 's3://Bad_Bucket/x', secretAccessKey: 'never-echoed-secret-123' }),
    });
    expect(refused.status).toBe(200);
    expect(refused.body).toContain('The delivery was not set up: bucket name Bad_Bucket');
    expect(refused.field('to')).toBe('s3://Bad_Bucket/x');
    expect(refused.body).not.toContain('never-echoed-secret-123');

    const added = await a.browser.post(path, {
      _csrf: refused.csrf as string,
      ...form({ to: 's3://no-such-bucket/caterer' }),
    });
    expect(added.status).toBe(303);
    const listed = await a.browser.get(added.headers.location as string);
    expect(listed.body).toContain('The delivery is set.');
    expect(listed.body).toContain('<code>s3://no-such-bucket/caterer</code>');
    expect(listed.body).toContain('Every day at 06:00 WIB');
    expect(listed.body).toContain('First delivery');
    const [row] = await t.store.db.selectFrom('exports').selectAll().execute();
    expect(row?.credentials_sealed).not.toContain(S3_CREDENTIALS.secretAccessKey);

    // Its run fails: the key page says why, and when it is tried again.
    const world = exportWorld(t.store, t.clock, s3);
    await expect(world.worker().runNow(row?.id as string)).rejects.toThrow(/NoSuchBucket/);
    await world.keyUsage.close();
    const failing = await a.browser.get(`${PORTAL}/keys/${a.keyId}`);
    expect(failing.body).toMatch(
      /The last delivery failed [^<]+, after 1 try: NoSuchBucket \(HTTP 404\): the bucket does not exist\. It is tried again/,
    );

    // Another holder cannot remove it; its holder can.
    const b = await holder(`exports-b-${engine}`);
    const stranger = await b.browser.post(`${path}/${row?.id}/remove`, {
      _csrf: b.page.csrf as string,
    });
    expect(stranger.status).toBe(404);
    const removed = await a.browser.post(`${path}/${row?.id}/remove`, {
      _csrf: failing.csrf as string,
    });
    expect(removed.status).toBe(303);
    expect((await a.browser.get(removed.headers.location as string)).body).toContain(
      'The delivery was removed.',
    );
    expect(await t.store.db.selectFrom('exports').selectAll().execute()).toHaveLength(0);
  });
});
