export { BudgetPacer, type BudgetPacerOptions } from './budget.js';
export { campaignFile, type ExportFormat, exportRows, type RowSource } from './export.js';
export { type Checkpoint, Mirror, type MirrorRow, type PassMode } from './mirror.js';
export { type CampaignResult, runSync, type SyncOptions, type SyncProgress } from './sync.js';
export { SyncWatcher, type WatchDeps, type WatchOptions, WatchStopped } from './watch.js';
