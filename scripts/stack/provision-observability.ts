/**
 * Provisioning of the monitoring the stack starts with itself, into the cache, reused afterwards:
 *
 * - Prometheus 2.42 and promtool (which the rule tests run): Debian 12's released binaries, fetched
 *   with `apt-get download` and unpacked with `dpkg -x` (no root needed, nothing installed), as
 *   HAProxy is (provision-cluster.ts); a Go program linking only the C library. Why not a build of
 *   Prometheus 3 from its Go module: the package is fetched and unpacked in seconds, where that build
 *   takes about seven minutes on two cores and would put the first start past its goal (README, "How
 *   long the first start takes"); Prometheus 3's module also lacks its web UI's assets. What the
 *   stack uses (scraping, file-based discovery, rules, the HTTP API, promtool's rule tests) is the
 *   same in 2.42. Debian's web UI pages need its JavaScript packages under /usr/share, so this one
 *   serves the HTTP API only.
 * - Alertmanager 0.25, built from its Go module (about 90 s on a cold Go cache, while Weaviate's
 *   much longer build runs; the module embeds its web UI and default templates). Debian's package was
 *   the first choice, but its binary reads its default notification template from a fixed
 *   /usr/share path and refuses to start without it.
 *
 * PROMETHEUS_BIN, PROMTOOL_BIN and ALERTMANAGER_BIN name binaries to use instead; a `prometheus`,
 * `promtool` or `alertmanager` (Debian: `prometheus-alertmanager`, installed) on the PATH of the
 * pinned version is used as it is.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir, ensureGoBinary, log, runWithProgress, which } from './provision';

export const OBSERVABILITY_VERSIONS = {
  /** Debian 12's `prometheus` package: Prometheus and promtool 2.42.0. */
  prometheus: '2.42.0+ds-5+deb12u1',
  /** Alertmanager's Go module. */
  alertmanager: 'v0.25.0',
} as const;

export interface ObservabilityBinaries {
  prometheus: string;
  promtool: string;
  alertmanager: string;
}

/** The upstream version inside a Debian version: `2.42.0` of `2.42.0+ds-5+deb12u1`. */
const upstream = (debianVersion: string) => /^\d+\.\d+\.\d+/.exec(debianVersion)![0];

/** The version a Prometheus-project binary prints (`prometheus, version 2.42.0+ds (branch: …)`), if it runs. */
export function binaryVersion(bin: string): string | undefined {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return /\bversion (\d+\.\d+\.\d+)/.exec(`${out.stdout ?? ''}${out.stderr ?? ''}`)?.[1];
}

/** One binary of a package: its setting, the names it has on a PATH, its path in the package. */
interface Binary {
  envVar: string;
  names: string[];
  inPackage: string;
  version: string;
}

/** The setting's binary, else one on the PATH of the pinned version, else undefined. */
function named(binary: Binary): string | undefined {
  const given = process.env[binary.envVar];
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`${binary.envVar}=${given} does not exist`);
    if (binaryVersion(given) !== binary.version)
      log(`warning: ${given} is not version ${binary.version}; using it as ${binary.envVar} says`);
    return given;
  }
  for (const name of binary.names) {
    const onPath = which(name);
    if (onPath && binaryVersion(onPath) === binary.version) return onPath;
  }
  return undefined;
}

/**
 * A Debian package unpacked into `<cache>/<name>-<version>/root` (fetched once with `apt-get
 * download`, unpacked with `dpkg -x`); returns that root.
 */
async function unpackDebian(o: { name: string; version: string; settings: string }): Promise<string> {
  const dir = path.join(cacheDir(), `${o.name}-${o.version}`);
  const root = path.join(dir, 'root');
  const done = path.join(dir, '.unpacked');
  if (fs.existsSync(done)) return root;
  if (!which('apt-get') || !which('dpkg'))
    throw new Error(`${o.name} ${upstream(o.version)} is missing and this is no Debian system: set ${o.settings}`);
  const debs = path.join(dir, 'debs');
  fs.mkdirSync(debs, { recursive: true });
  await runWithProgress(
    `fetching ${o.name}=${o.version} from Debian`,
    'apt-get',
    ['download', `${o.name}=${o.version}`],
    process.env,
    debs,
  );
  for (const deb of fs.readdirSync(debs).filter((f) => f.endsWith('.deb'))) {
    const out = spawnSync('dpkg', ['-x', path.join(debs, deb), root], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`dpkg -x ${deb} failed: ${out.stderr}`);
  }
  // The packages' own copies are no longer needed once unpacked (about 30 MB).
  fs.rmSync(debs, { recursive: true, force: true });
  fs.writeFileSync(done, `${new Date().toISOString()}\n`);
  return root;
}

/** Each binary of one package: named by its setting or on the PATH, else from the unpacked package. */
async function fromPackage(o: { name: string; version: string; binaries: Binary[] }): Promise<string[]> {
  const found = o.binaries.map(named);
  if (found.every(Boolean)) return found as string[];
  const settings = o.binaries.map((b) => b.envVar).join(', ');
  const root = await unpackDebian({ name: o.name, version: o.version, settings });
  return o.binaries.map((binary, i) => {
    if (found[i]) return found[i]!;
    const bin = path.join(root, binary.inPackage);
    if (binaryVersion(bin) !== binary.version) throw new Error(`${bin} does not run as ${binary.version}`);
    return bin;
  });
}

/** Prometheus and promtool (one package). */
export async function ensurePrometheus(): Promise<{ prometheus: string; promtool: string }> {
  const version = upstream(OBSERVABILITY_VERSIONS.prometheus);
  const [prometheus, promtool] = await fromPackage({
    name: 'prometheus',
    version: OBSERVABILITY_VERSIONS.prometheus,
    binaries: [
      { envVar: 'PROMETHEUS_BIN', names: ['prometheus'], inPackage: 'usr/bin/prometheus', version },
      { envVar: 'PROMTOOL_BIN', names: ['promtool'], inPackage: 'usr/bin/promtool', version },
    ],
  });
  return { prometheus, promtool };
}

/** promtool alone (the rule tests). */
export async function ensurePromtool(): Promise<string> {
  return (await ensurePrometheus()).promtool;
}

/** Alertmanager: ALERTMANAGER_BIN, else one on the PATH of the pinned version, else built from its Go module. */
export function ensureAlertmanager(): Promise<string> {
  const version = OBSERVABILITY_VERSIONS.alertmanager;
  const given = named({
    envVar: 'ALERTMANAGER_BIN',
    names: ['alertmanager', 'prometheus-alertmanager'],
    inPackage: '',
    version: version.replace(/^v/, ''),
  });
  if (given) return Promise.resolve(given);
  return ensureGoBinary({
    label: 'Alertmanager',
    envVar: 'ALERTMANAGER_BIN',
    binName: 'alertmanager',
    module: 'github.com/prometheus/alertmanager',
    pkg: 'cmd/alertmanager',
    version,
  });
}

/** Prometheus, promtool and Alertmanager, fetched or built when missing, reused afterwards. */
export async function provisionObservability(): Promise<ObservabilityBinaries> {
  const [{ prometheus, promtool }, alertmanager] = await Promise.all([ensurePrometheus(), ensureAlertmanager()]);
  log(`Prometheus: ${prometheus}`);
  log(`Alertmanager: ${alertmanager}`);
  return { prometheus, promtool, alertmanager };
}
