/**
 * The clients the activities share, built from the services configuration.
 */
import type { ActivityDeps } from '../activities';
import { Runtime } from '@temporalio/worker';
import { meteredChatGateway } from '../domain/models/token-meter';
import { UseCaseStore, useCasesFolder } from '../domain/evaluation/use-cases';
import { createEmbedder, createEnglishEncoder, withVectorCache } from '../domain/models/embeddings';
import { connectWeaviate } from '../domain/weaviate/client';
import { createCpuPool } from '../domain/cpu/pool';
import type { WorkerConfig } from './config';

/** English vectors a worker keeps between tag trainings: a tenant at the training cap (TAG_TRAINING.maxCases), about 80 MB. */
const ENGLISH_VECTORS_CACHED = 50_000;

/** The activities' clients, from the worker's configuration (worker/config.ts), read once at its start. */
export function createActivityDeps(settings: WorkerConfig): ActivityDeps {
  const config = settings.services;
  const englishEncoder = createEnglishEncoder(config);
  const weaviate = () => connectWeaviate(config.weaviate);
  const { chat, meter } = meteredChatGateway({
    config: config.chat,
    weaviate,
    syncMs: settings.tokenSyncMs,
    log: (level, message, meta) => Runtime.instance().logger[level](message, meta),
  });
  return {
    weaviate,
    embedder: createEmbedder(config.embeddings),
    english: englishEncoder && withVectorCache(englishEncoder, { maxEntries: ENGLISH_VECTORS_CACHED }),
    chat,
    tokens: meter,
    useCases: new UseCaseStore(useCasesFolder(settings.useCasesDir)),
    cpu: createCpuPool(settings.cpu),
    ingestSliceMs: settings.ingestSliceMs,
    // One thread: trainings of several tenants take turns, heartbeating while they wait.
    tagCpu: createCpuPool({
      threads: 1,
      budgetMs: settings.tagTrainingBudgetMs,
    }),
  };
}
