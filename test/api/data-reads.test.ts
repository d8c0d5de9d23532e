import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataReads } from '../../src/data-api/data-reads.ts';
import type { Store } from '../../src/db/connect.ts';
import { Speedups } from '../../src/speedups.ts';
import { TEST_SECRETS } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { seedCampaign } from '../helpers/factories.ts';
import { createTestStore, ENGINES } from '../helpers/stores.ts';

const settings = (speedups: Speedups) => ({
  cursorKey: TEST_SECRETS.cursorKey,
  pageThreads: 0,
  responseCacheBytes: 0,
  speedups,
});

describe.each(ENGINES)('the data reads on %s', (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await createTestStore(engine);
    await seedCampaign(store, new ManualClock(), { id: 'gala' });
  });
  afterAll(() => store.close());

  it('read ahead only where a read is a round trip, and only with read-ahead on', async () => {
    const on = createDataReads(store, settings(Speedups.ALL_ON));
    const off = createDataReads(store, settings(new Speedups(['read-ahead'])));
    try {
      const ahead = on.readAhead('respondents', 'gala');
      if (engine === 'sqlite') {
        expect(ahead).toBeUndefined();
      } else {
        expect(ahead?.kind).toBe('respondents');
        expect(await ahead?.read).toMatchObject({ id: 'gala' });
        expect(await on.readAhead('summary', 'gala')?.read).toMatchObject({
          campaign: { id: 'gala' },
        });
      }
      expect(off.readAhead('respondents', 'gala')).toBeUndefined();
    } finally {
      await on.close();
      await off.close();
    }
  });
});
