import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataReads } from '../../../src/data-api/data-reads.ts';
import type { Store } from '../../../src/db/connect.ts';
import { Speedups } from '../../../src/speedups.ts';
import { TEST_SECRETS } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/clock.ts';
import { seedCampaign } from '../../helpers/factories.ts';
import { createTestStore, ENGINES } from '../../helpers/stores.ts';

const settings = (speedups: Speedups) => ({
  cursorKey: TEST_SECRETS.cursorKey,
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
    {
      const ahead = on.readAhead('record', 'gala');
      if (engine === 'sqlite') {
        expect(ahead).toBeUndefined();
      } else {
        expect(ahead?.need).toBe('record');
        expect(await ahead?.read).toMatchObject({ id: 'gala' });
        expect(await on.readAhead('counts', 'gala')?.read).toMatchObject({
          campaign: { id: 'gala' },
        });
      }
      expect(off.readAhead('record', 'gala')).toBeUndefined();
    }
  });
});
