/**
 * The one workflow bundle that every worker process and every API's ask worker runs: workflows/
 * (its index, the only workflowsPath) bundled by bundleWorkflowCode into `dist/workflow-bundle/`,
 * in a file named by the hash of what it is built from (every source file of workflows/ and the
 * versions of the Temporal packages that bundle and run it). The launcher builds it before it
 * starts the processes (`npm start`, `npm test`, the benchmarks: scripts/stack/provision.ts), and `npm run provision`
 * builds it too, so no process bundles at its start; a process that finds no bundle of the
 * current sources builds it once and leaves it for the next. The bundle also holds the workflows'
 * interceptor module (workflows/tracing.ts: Temporal's OpenTelemetry interceptors, applied to the
 * runs a traced request started), so its package's version is part of the hash too.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, type Logger } from '@temporalio/worker';

const WORKFLOWS_DIR = path.resolve(__dirname, '..', 'workflows');
/** The workflows' interceptor modules, bundled beside them (a file of workflows/, so its source is hashed). */
const WORKFLOW_INTERCEPTOR_MODULES = [path.join(WORKFLOWS_DIR, 'tracing.ts')];
export const WORKFLOW_BUNDLE_DIR = path.resolve(__dirname, '..', 'dist', 'workflow-bundle');

/** The Temporal packages whose code goes into the bundle or runs it. */
const TEMPORAL_PACKAGES = [
  '@temporalio/workflow',
  '@temporalio/common',
  '@temporalio/worker',
  '@temporalio/interceptors-opentelemetry',
];

/** Every file under `dir`, sorted, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * What the bundle is built from, hashed: the workflows' sources, which of them are interceptor
 * modules, and the Temporal packages' versions.
 */
export function workflowSourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of filesUnder(WORKFLOWS_DIR))
    hash
      .update(`${file}\0`)
      .update(fs.readFileSync(path.join(WORKFLOWS_DIR, file)))
      .update('\0');
  for (const module of WORKFLOW_INTERCEPTOR_MODULES)
    hash.update(`interceptors:${path.relative(WORKFLOWS_DIR, module)}\0`);
  for (const pkg of TEMPORAL_PACKAGES) {
    const manifest = path.join(path.dirname(require.resolve(pkg)), '..', 'package.json');
    hash.update(`${pkg}@${(JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version}\0`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The bundle of the current sources, as Worker.create's `workflowBundle`: read from its file when
 * built already, otherwise built now and written for the next process (to a temporary name first,
 * so a process never reads half a file, whoever builds it at the same time).
 */
export async function workflowBundle(o: { logger?: Logger } = {}): Promise<{ codePath: string }> {
  const codePath = path.join(WORKFLOW_BUNDLE_DIR, `workflows-${workflowSourcesHash()}.js`);
  if (fs.existsSync(codePath)) return { codePath };
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(WORKFLOWS_DIR),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: o.logger,
  });
  fs.mkdirSync(WORKFLOW_BUNDLE_DIR, { recursive: true });
  const partial = `${codePath}.${process.pid}.tmp`;
  fs.writeFileSync(partial, code);
  fs.renameSync(partial, codePath);
  // Bundles of earlier sources are left behind by an update; only the current one is kept.
  for (const file of fs.readdirSync(WORKFLOW_BUNDLE_DIR))
    if (file.endsWith('.js') && path.join(WORKFLOW_BUNDLE_DIR, file) !== codePath)
      fs.rmSync(path.join(WORKFLOW_BUNDLE_DIR, file), { force: true });
  return { codePath };
}
