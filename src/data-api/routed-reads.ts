import type { CampaignService, DataCaller } from '../campaigns/campaigns.service.ts';
import type { ChangesFeed } from '../changes/changes.service.ts';
import type { RemovalsFeed } from '../removals/removals.service.ts';
import type { DataReads } from './data-reads.ts';

/**
 * The reads of a data request from the primary or from the replica, as the door chose for its
 * caller (`fromReplica`, see replica-choice.ts). Access checks, read-ahead and whole-campaign
 * files stay on the primary; a read sent to the replica leaves the primary's read-ahead unused.
 */
export function routedReads(primary: DataReads, replica: DataReads): DataReads {
  const pick = (caller: DataCaller) => (caller.fromReplica ? replica : primary);
  const onReplica = (caller: DataCaller): DataCaller =>
    caller.fromReplica ? { ...caller, ahead: undefined } : caller;
  const campaigns: CampaignService = {
    listCampaigns: (caller) => pick(caller).campaigns.listCampaigns(onReplica(caller)),
    access: (key, campaignId) => primary.campaigns.access(key, campaignId),
    fields: (caller, campaignId) => pick(caller).campaigns.fields(onReplica(caller), campaignId),
    readAhead: (kind, campaignId) => primary.campaigns.readAhead(kind, campaignId),
    summary: (caller, campaignId) => pick(caller).campaigns.summary(onReplica(caller), campaignId),
    respondents: (caller, campaignId, query) =>
      pick(caller).campaigns.respondents(onReplica(caller), campaignId, query),
    everyRespondent: (key, campaignId) => primary.campaigns.everyRespondent(key, campaignId),
  };
  const removals: RemovalsFeed = {
    page: (caller, campaignId, query) =>
      pick(caller).removals.page(onReplica(caller), campaignId, query),
  };
  const changes: ChangesFeed = {
    page: (caller, campaignId, query) =>
      pick(caller).changes.page(onReplica(caller), campaignId, query),
  };
  return {
    campaigns,
    removals,
    changes,
    readAhead: (kind, campaignId) => primary.readAhead(kind, campaignId),
    start: () => {
      primary.start();
      replica.start();
    },
    get threadsRunning() {
      return primary.threadsRunning + replica.threadsRunning;
    },
    close: async () => {
      await Promise.all([primary.close(), replica.close()]);
    },
  };
}
