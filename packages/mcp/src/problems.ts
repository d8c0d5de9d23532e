import { HadirApiError, HadirNetworkError } from '@hadir/client';

/** A tool's failure, said for the model that called it (and the person it works for). */
export class ToolProblem extends Error {}

/**
 * What went wrong, in words: the data API's errors by what they mean for this call, never a
 * stack. `campaignId` names the campaign the call was about.
 */
export function problemInWords(error: unknown, campaignId?: string): string {
  const campaign = campaignId ? `campaign "${campaignId}"` : 'that campaign';
  if (error instanceof ToolProblem) return error.message;
  if (error instanceof HadirApiError) {
    switch (error.status) {
      case 401:
        return 'Hadir refused the API key (revoked, expired, or mistyped): the key in HADIR_API_KEY no longer works. Ask its holder for a current key.';
      case 403:
        if (error.code !== 'forbidden') return `Hadir refused the request: ${error.message}`;
        return `This key may not read ${campaign}: it is outside the key's scope. list_campaigns shows the campaigns it may read.`;
      case 404:
        return `There is no ${campaign}. list_campaigns shows the campaigns this key may read.`;
      case 410:
        return `The "since" given is older than the removals Hadir keeps for ${campaign}: read the campaign again from the start with list_respondents (no since, no cursor) instead.`;
      case 429:
        return `Hadir's rate limit for this key is used up for now (${error.message}). Wait a minute and call again.`;
      default:
        if (error.status >= 500) {
          return `Hadir could not answer just now (HTTP ${error.status}): try again shortly.`;
        }
        return `Hadir refused the request: ${error.message}`;
    }
  }
  if (error instanceof HadirNetworkError) {
    return `Could not reach Hadir (${error.why}): check HADIR_BASE_URL and the network.`;
  }
  return `The request failed: ${error instanceof Error ? error.message : String(error)}`;
}
