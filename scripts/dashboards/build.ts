/**
 * Writes ops/dashboards/support-ai.json from its description (scripts/dashboards/support-ai.ts):
 * `node -r ts-node/register/transpile-only scripts/dashboards/build.ts`. The dashboard test
 * (test/stack/dashboards.test.ts) fails while the file differs from what this writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dashboardJson } from './grafana';
import { supportAiDashboard } from './support-ai';

export const DASHBOARD_FILE = path.resolve(__dirname, '..', '..', 'ops', 'dashboards', 'support-ai.json');

export const expectedDashboardJson = () => dashboardJson(supportAiDashboard);

if (require.main === module) {
  fs.writeFileSync(DASHBOARD_FILE, expectedDashboardJson());
  console.log(`wrote ${path.relative(process.cwd(), DASHBOARD_FILE)}`);
}
