export {
  type BatchAnswer,
  batchKey,
  IngestClient,
  type IngestClientOptions,
  type SendResult,
} from './ingest-client.ts';
export { type Drained, drainOnce, type RelayOptions, RelayStopped, runRelay } from './relay.ts';
