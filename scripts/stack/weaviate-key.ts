/**
 * The API key of the stack's Weaviate. It is generated on the first start of a data folder and
 * kept there in a file only its owner can read, so later starts, the worker, the API and the
 * keys command all use the same key.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const WEAVIATE_KEY_FILE = 'weaviate-api-key';

export const weaviateKeyPath = (dataDir: string) => path.join(dataDir, WEAVIATE_KEY_FILE);

/** The key kept in `dataDir`, or undefined when there is none yet. */
export function readWeaviateKey(dataDir: string): string | undefined {
  return readSecret(weaviateKeyPath(dataDir));
}

/** The secret kept in a file, or undefined when there is none (no file, or an empty one). */
function readSecret(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The key of `dataDir`, created when missing; the file is left with mode 0600. */
export function ensureWeaviateKey(dataDir: string): string {
  return ensureSecret(dataDir, WEAVIATE_KEY_FILE);
}

/**
 * A random secret kept in `<dataDir>/<file>`, created when missing, the file left with mode 0600
 * (Weaviate's key; the cluster's PostgreSQL password). Hex, so it never contains the comma that
 * separates Weaviate's allowed keys, nor anything a connection string would have to quote.
 */
export function ensureSecret(dataDir: string, file: string): string {
  const at = path.join(dataDir, file);
  let secret = readSecret(at);
  if (!secret) {
    secret = randomBytes(32).toString('hex');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(at, `${secret}\n`, { mode: 0o600 });
  }
  fs.chmodSync(at, 0o600); // a copied or restored file may have lost its mode
  return secret;
}
