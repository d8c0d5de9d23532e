export {
  type BatchAnswer,
  batchKey,
  IngestClient,
  type IngestClientOptions,
  IngestUnavailable,
  type SendResult,
} from './ingest-client.ts';
export { type Drained, drainOnce, type RelayOptions, RelayStopped, runRelay } from './relay.ts';
