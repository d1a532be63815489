/**
 * What the stack exposes to other machines: Weaviate answers only with its API key (HTTP, gRPC
 * and its cluster port), the key is kept with the data folder and survives restarts, and every
 * socket the stack's processes listen on is bound to loopback, except the three Weaviate ports
 * whose address it cannot be told (README, Security).
 */
import { strict as assert } from 'node:assert';
import fs from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import { after, before, describe, it } from 'mocha';
import { COLLECTIONS } from '../../domain/weaviate/collections';
import { WEAVIATE_USER } from '../../scripts/stack/services';
import { RunningStack, StackPorts, freePorts, startStack } from '../../scripts/stack/stack';
import { weaviateKeyPath } from '../../scripts/stack/weaviate-key';
import { createKey, requireStack } from '../helpers/harness';

/** A unary gRPC call with Node's own HTTP/2 client; resolves to the grpc-status it ends with. */
function grpcCall(
  port: number,
  method: string,
  message: Buffer,
  token?: string,
): Promise<{ status: number; message: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
    };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = session.request(headers);
    const frame = Buffer.alloc(5 + message.length); // uncompressed flag, big-endian length, message
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    let bytes = 0;
    let result: { status: number; message: string } | undefined;
    const end = (h: http2.IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined)
        result = { status: Number(h['grpc-status']), message: decodeURIComponent(String(h['grpc-message'] ?? '')) };
    };
    req.on('response', end); // a trailers-only answer carries the status in its headers
    req.on('trailers', end);
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('error', reject);
    req.on('close', () => {
      session.close();
      if (result) resolve({ ...result, bytes });
      else reject(new Error(`no grpc-status from ${method}`));
    });
    req.end(frame);
  });
}

/** weaviate.v1.SearchRequest with only `collection` (field 1) set. */
const searchRequest = (collection: string) =>
  Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(collection)]), Buffer.from(collection)]);
const SEARCH = '/weaviate.v1.Weaviate/Search';

/** Weaviate refuses a gRPC call without a valid key with status UNKNOWN (2), not UNAUTHENTICATED (16),
 * and its authentication error (adapters/handlers/grpc/v1/service.go: "extract auth: ..."). */
function assertRefused(call: { status: number; message: string }, what: string): void {
  assert.notEqual(call.status, 0, `${what} succeeded`);
  assert.match(call.message, /^extract auth: unauthorized/, `${what}: ${JSON.stringify(call)}`);
}

interface Socket {
  protocol: 'tcp' | 'udp';
  address: string;
  port: number;
  pid: number;
}

/** An address of /proc/net/{tcp,udp}{,6}: hex, in 32-bit words of host (little-endian) order. */
function decodeAddress(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap((word) => [...Buffer.from(word, 'hex').reverse()]);
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] << 8) | bytes[2 * i + 1]).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

const isLoopback = (address: string) => /^(::ffff:)?127\./.test(address) || address === '::1';

/** Each process of a service and its descendants. */
function processTree(roots: number[]): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  const tree = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** The TCP sockets listening and UDP sockets bound by these processes (like `ss -ltunp`). */
function listeningSockets(pids: number[]): Socket[] {
  const owner = new Map<string, number>();
  for (const pid of pids) {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      const link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' });
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode) owner.set(inode, pid);
    }
  }
  const sockets: Socket[] = [];
  for (const [file, protocol, state] of [
    ['tcp', 'tcp', '0A'],
    ['tcp6', 'tcp', '0A'],
    ['udp', 'udp', '07'],
    ['udp6', 'udp', '07'],
  ] as const) {
    for (const line of fs.readFileSync(`/proc/net/${file}`, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [hexAddress, hexPort] = fields[1].split(':');
      const pid = owner.get(fields[9]);
      if (fields[3] === state && pid !== undefined)
        sockets.push({ protocol, address: decodeAddress(hexAddress), port: parseInt(hexPort, 16), pid });
    }
  }
  return sockets;
}

describe('exposure: Weaviate authentication and loopback-only ports', function () {
  this.timeout(300_000);
  let dataDir: string;
  let ports: StackPorts;
  let stack: RunningStack | undefined;

  /** A stack of this test's own, like `npm start` runs it, embedding servers and English encoder included. */
  async function start(): Promise<RunningStack> {
    // Set, the test runner's servers would be used instead of starting this stack's own.
    const runners = ['EMBEDDINGS_URL', 'TAG_EMBEDDINGS_URL'].map((name) => [name, process.env[name]] as const);
    for (const [name] of runners) delete process.env[name];
    try {
      stack = await startStack({ dataDir, ports, headless: false });
      return stack;
    } finally {
      for (const [name, value] of runners) if (value !== undefined) process.env[name] = value;
    }
  }

  before(async () => {
    requireStack();
    dataDir = fs.mkdtempSync(path.join(process.env.SUPPORT_AI_TEST_DATA!, 'exposure-'));
    ports = await freePorts();
  });

  after(async () => {
    await stack?.stop();
  });

  it('refuses anonymous HTTP and gRPC requests to the Weaviate of the test stack; its key opens both', async () => {
    await createKey(); // the harness creates the collections and stores a key record
    const base = `http://${process.env.WEAVIATE_HOST}:${process.env.WEAVIATE_HTTP_PORT}`;
    for (const url of [`${base}/v1/objects?class=${COLLECTIONS.apiKey}`, `${base}/v1/schema`, `${base}/v1/meta`]) {
      assert.equal((await fetch(url)).status, 401, `anonymous GET ${url}`);
      assert.equal(
        (await fetch(url, { headers: { Authorization: 'Bearer not-the-key' } })).status,
        401,
        `GET ${url} with a wrong key`,
      );
    }
    const grpcPort = Number(process.env.WEAVIATE_GRPC_PORT);
    assertRefused(await grpcCall(grpcPort, SEARCH, searchRequest(COLLECTIONS.apiKey)), 'anonymous gRPC search');
    assertRefused(
      await grpcCall(grpcPort, SEARCH, searchRequest(COLLECTIONS.apiKey), 'not-the-key'),
      'gRPC search with a wrong key',
    );

    const key = process.env.WEAVIATE_API_KEY;
    assert.ok(key, 'the launcher passes WEAVIATE_API_KEY to the worker and the API');
    const keyed = await fetch(`${base}/v1/objects?class=${COLLECTIONS.apiKey}&limit=1`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    assert.equal(keyed.status, 200);
    assert.equal(((await keyed.json()) as { objects: unknown[] }).objects.length, 1);

    const authorised = await grpcCall(grpcPort, SEARCH, searchRequest(COLLECTIONS.apiKey), key);
    assert.equal(authorised.status, 0, authorised.message);
    assert.ok(authorised.bytes > 0, 'the search with the key returns key records');
  });

  it('keeps the key in the data folder (mode 0600) and reuses it when the stack starts again', async () => {
    const first = await start();
    const key = first.env.WEAVIATE_API_KEY;
    assert.match(key ?? '', /^[0-9a-f]{64}$/);
    const file = weaviateKeyPath(dataDir);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(file, 'utf8').trim(), key);
    await first.stop();
    stack = undefined;

    const again = await start();
    assert.equal(again.env.WEAVIATE_API_KEY, key, 'the second start uses the same key');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    const schema = `http://127.0.0.1:${ports.weaviateHttp}/v1/schema`;
    assert.equal((await fetch(schema, { headers: { Authorization: `Bearer ${key}` } })).status, 200);
    assert.equal((await fetch(schema)).status, 401);
  });

  it('listens on loopback only, except the Weaviate ports that cannot be bound, which refuse anonymous requests', async () => {
    const running = stack ?? (await start());
    assert.deepEqual(running.services.map((s) => s.name).sort(), [
      'alertmanager',
      'embeddings',
      'embeddings-query',
      'english-encoder',
      'prometheus',
      'temporal',
      'weaviate',
    ]);
    const weaviate = running.services.find((s) => s.name === 'weaviate')!;
    const sockets = listeningSockets(processTree(running.services.map((s) => s.child.pid!)));
    const ownPorts = new Set(sockets.map((s) => s.port));
    for (const port of [
      ports.temporal,
      ports.temporalUi,
      ports.temporalMetrics,
      ports.weaviateHttp,
      ports.weaviateGrpc,
      ports.weaviateGossip,
      ports.weaviateData,
      ports.weaviateRaft,
      ports.weaviateRaftRpc,
      ports.weaviateMetrics,
      ports.embeddings,
      ports.embeddingsQuery,
      ports.englishEncoder,
      ports.prometheus,
      ports.alertmanager,
    ]) {
      assert.ok(ownPorts.has(port), `nothing of the stack listens on ${port}: ${JSON.stringify(sockets)}`);
    }

    // weaviate-server v1.38.11 listens on ":<port>" for its gRPC API (adapters/handlers/grpc/server.go,
    // StartAndListen), its cluster API (adapters/handlers/rest/clusterapi/serve.go, NewServer) and its
    // metrics (adapters/handlers/rest/configure_api.go, PROMETHEUS_MONITORING_PORT); none of these
    // addresses can be configured.
    const unavoidable = (s: Socket) =>
      s.pid === weaviate.child.pid &&
      s.protocol === 'tcp' &&
      (s.port === ports.weaviateGrpc || s.port === ports.weaviateData || s.port === ports.weaviateMetrics);
    const exposed = sockets.filter((s) => !isLoopback(s.address));
    assert.deepEqual(
      exposed.filter((s) => !unavoidable(s)),
      [],
      'sockets bound beyond loopback',
    );

    const key = running.env.WEAVIATE_API_KEY;
    assertRefused(
      await grpcCall(ports.weaviateGrpc, SEARCH, searchRequest(COLLECTIONS.apiKey)),
      'anonymous gRPC search',
    );
    // The cluster API (other nodes read and write shards through it) asks for the cluster password.
    const cluster = `http://127.0.0.1:${ports.weaviateData}/nodes/`;
    assert.equal((await fetch(cluster)).status, 401, 'anonymous request to the cluster API');
    const basic = `Basic ${Buffer.from(`${WEAVIATE_USER}:${key}`).toString('base64')}`;
    assert.notEqual(
      (await fetch(cluster, { headers: { Authorization: basic } })).status,
      401,
      'the cluster password opens it',
    );
  });
});
