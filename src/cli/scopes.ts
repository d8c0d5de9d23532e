import type { KeyScope } from '../keys/keys.repository.ts';
import { UsageError } from './usage-error.ts';

/** Reads repeated `--scope CAMPAIGN_ID=field1,field2` options; `ID=` grants an empty allow-list. */
export function parseScopeOptions(values: string[]): KeyScope[] {
  return values.map((value) => {
    const separator = value.indexOf('=');
    if (separator <= 0) {
      throw new UsageError(
        `--scope takes CAMPAIGN_ID=field1,field2 (or CAMPAIGN_ID=), got '${value}'`,
      );
    }
    const fields = value
      .slice(separator + 1)
      .split(',')
      .map((field) => field.trim())
      .filter((field) => field !== '');
    return { campaignId: value.slice(0, separator).trim(), fields };
  });
}
