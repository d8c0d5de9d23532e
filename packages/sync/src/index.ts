export { type ExportFormat, exportRows } from './export.js';
export { Mirror, type MirrorRow } from './mirror.js';
export { type CampaignResult, runSync, type SyncOptions, type SyncProgress } from './sync.js';
