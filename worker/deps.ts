/**
 * The clients the activities share, built from the services configuration.
 */
import type { ActivityDeps } from '../activities';
import type { ServicesConfig } from '../domain/config';
import { Runtime } from '@temporalio/worker';
import { meteredChatGateway } from '../domain/models/token-meter';
import { DEFAULT_USE_CASES_DIR, UseCaseStore } from '../domain/evaluation/use-cases';
import path from 'node:path';
import { createEmbedder, createEnglishEncoder, withVectorCache } from '../domain/models/embeddings';
import { connectWeaviate } from '../domain/weaviate/client';
import { createCpuPool } from '../domain/cpu/pool';
import { positiveEnv } from '../domain/config';
import { INGEST_SLICE_MS } from '../domain/weaviate/ingest';

/** English vectors a worker keeps between tag trainings: a tenant at the training cap (TAG_TRAINING.maxCases), about 80 MB. */
const ENGLISH_VECTORS_CACHED = 50_000;
/**
 * Time one tag model's fit may run on its thread. Fitting a tenant at the training cap (50,000
 * cases, about 80 tags, with the English encoder) took about 8 minutes of CPU, 11.5 minutes on two
 * cores shared with other work; the default leaves room for a slower or busier machine.
 */
const TAG_TRAINING_BUDGET_MS = 30 * 60_000;

export function createActivityDeps(config: ServicesConfig, env: NodeJS.ProcessEnv = process.env): ActivityDeps {
  const englishEncoder = createEnglishEncoder(config);
  const weaviate = () => connectWeaviate(config.weaviate);
  const { chat, meter } = meteredChatGateway({
    config: config.chat,
    weaviate,
    syncMs: positiveEnv(env, 'TOKEN_SYNC_MS', 1000),
    log: (level, message, meta) => Runtime.instance().logger[level](message, meta),
  });
  return {
    weaviate,
    embedder: createEmbedder(config.embeddings),
    english: englishEncoder && withVectorCache(englishEncoder, { maxEntries: ENGLISH_VECTORS_CACHED }),
    chat,
    tokens: meter,
    useCases: new UseCaseStore(env.USE_CASES_DIR ? path.resolve(env.USE_CASES_DIR) : DEFAULT_USE_CASES_DIR),
    cpu: createCpuPool({
      threads: positiveEnv(env, 'WORKER_CPU_THREADS', 2),
      budgetMs: positiveEnv(env, 'WORKER_CPU_BUDGET_MS', 30_000),
    }),
    ingestSliceMs: positiveEnv(env, 'WORKER_INGEST_SLICE_MS', INGEST_SLICE_MS),
    // One thread: trainings of several tenants take turns, heartbeating while they wait.
    tagCpu: createCpuPool({
      threads: 1,
      budgetMs: positiveEnv(env, 'WORKER_TAG_TRAINING_BUDGET_MS', TAG_TRAINING_BUDGET_MS),
    }),
  };
}
