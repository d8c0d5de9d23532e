// Writes deploy/grafana/hadir.json from scripts/dashboard.ts (npm run dashboard).
import { writeFileSync } from 'node:fs';
import { dashboard } from './dashboard.ts';

const file = new URL('../deploy/grafana/hadir.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(dashboard(), null, 2)}\n`);
process.stdout.write(`wrote ${file.pathname}\n`);
