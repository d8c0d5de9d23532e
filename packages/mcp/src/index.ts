export { createHadirMcpServer, SERVER_INFO } from './server.ts';
export { readSettings, type Settings } from './settings.ts';
