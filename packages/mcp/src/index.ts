export { CampaignQuestions } from './campaign-questions.ts';
export { createHadirMcpServer, SERVER_INFO } from './server.ts';
export { readSettings, type Settings } from './settings.ts';
export type { HandedOver } from './tool-kit.ts';
