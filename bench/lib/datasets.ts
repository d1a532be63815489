/**
 * The benchmark datasets (see each folder's SOURCE.md) and how their records become API upload
 * items. Reading is synchronous: every file is a few MB at most.
 */
import fs from 'node:fs';
import path from 'node:path';

export function readJsonl<T = any>(file: string): T[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      try {
        return JSON.parse(line) as T;
      } catch (err) {
        throw new Error(`${path.basename(file)} line ${i + 1}: ${(err as Error).message}`);
      }
    });
}

/** Fails early, naming the folder argument, when a dataset file is missing. */
export function datasetFile(root: string, ...parts: string[]): string {
  const file = path.join(root, ...parts);
  if (!fs.existsSync(file))
    throw new Error(
      `dataset file ${parts.join('/')} not found under the datasets folder ${root} (pass --datasets <dir>)`,
    );
  return file;
}

/** A fixed creation time for synthetic records: 2024-01-01T00:00:00Z. */
const T0 = Date.UTC(2024, 0, 1);

// --- StackFAQ -------------------------------------------------------------------------------

export interface StackFaqThread {
  thread_id: string;
  question: string;
  answers: string[];
}

export interface StackFaqQuery {
  query_id: string;
  text: string;
  thread_id: string;
  group: 'A' | 'B';
}

export function loadStackFaq(root: string): { threads: StackFaqThread[]; queries: StackFaqQuery[] } {
  return {
    threads: readJsonl<StackFaqThread>(datasetFile(root, 'stackfaq', 'threads.jsonl')),
    queries: readJsonl<StackFaqQuery>(datasetFile(root, 'stackfaq', 'queries.jsonl')),
  };
}

/** A thread as a support case: the question is the subject, each answer a public comment. */
export function stackFaqCase(t: StackFaqThread) {
  return {
    id: t.thread_id,
    subject: t.question,
    url: `https://cases.bench.example/stackfaq/${t.thread_id}`,
    timeOfCreation: T0,
    comments: t.answers.map((answer, i) => ({
      commentId: `${t.thread_id}-a${i + 1}`,
      comment: answer,
      commenter: 'stackexchange-user',
      isPublic: true,
      timeOfCreation: T0 + (i + 1) * 60_000,
    })),
  };
}

// --- SemEval-2016 Task 3, subtask B, dev ------------------------------------------------------

export interface SemEvalCandidate {
  relq_id: string;
  ir_rank: number;
  category: string;
  date: string;
  subject: string;
  body: string;
  relevance: 'PerfectMatch' | 'Relevant' | 'Irrelevant';
}

export interface SemEvalQuestion {
  orgq_id: string;
  subject: string;
  body: string;
  candidates: SemEvalCandidate[];
}

export interface RelevancyRow {
  orgqId: string;
  relqId: string;
  irRank: number;
  relevant: boolean;
}

export function loadSemEvalDev(root: string): { questions: SemEvalQuestion[]; relevancy: RelevancyRow[] } {
  const questions = readJsonl<SemEvalQuestion>(datasetFile(root, 'semeval2016_task3_qq_dev', 'dev_subtaskB.jsonl'));
  const relevancy = parseRelevancy(
    fs.readFileSync(datasetFile(root, 'semeval2016_task3_qq_dev', 'dev_subtaskB.relevancy'), 'utf8'),
  );
  return { questions, relevancy };
}

/** The official gold format: orgq_id, relq_id, ir_rank, ir score, true|false, TAB-separated. */
export function parseRelevancy(text: string): RelevancyRow[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line, i) => {
      const [orgqId, relqId, rank, , label] = line.trim().split('\t');
      if (label !== 'true' && label !== 'false')
        throw new Error(`relevancy line ${i + 1}: label "${label}" is not true/false`);
      return { orgqId, relqId, irRank: Number(rank), relevant: label === 'true' };
    });
}

/** A related question as a support case: its subject and its body as the description. */
export function semEvalCase(c: SemEvalCandidate) {
  const time = Date.parse(`${c.date.replace(' ', 'T')}Z`);
  return {
    id: c.relq_id,
    subject: c.subject,
    description: c.body,
    url: `https://cases.bench.example/semeval/${c.relq_id}`,
    timeOfCreation: Number.isFinite(time) ? time : T0,
  };
}

/** The original question as the search text: subject and body. */
export const semEvalQuery = (q: SemEvalQuestion) => [q.subject, q.body].filter((s) => s?.trim()).join('\n');

// --- Banking77 ------------------------------------------------------------------------------

/** Rows of a CSV text (RFC 4180: quoted fields may hold commas, doubled quotes and line breaks). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows.filter((r) => r.some((f) => f.trim()));
}

export interface Banking77Row {
  text: string;
  category: string;
}

/** One split of BANKING77 (`train` or `test`): online-banking customer questions and their intent. */
export function loadBanking77(root: string, split: 'train' | 'test'): Banking77Row[] {
  const [header, ...rows] = parseCsv(fs.readFileSync(datasetFile(root, 'banking77', `${split}.csv`), 'utf8'));
  if (header?.join() !== 'text,category')
    throw new Error(`banking77/${split}.csv: unexpected header ${JSON.stringify(header)}`);
  return rows.map(([text, category], i) => {
    if (text === undefined || category === undefined)
      throw new Error(`banking77/${split}.csv row ${i + 2}: expected 2 fields`);
    return { text, category };
  });
}

// --- GitHub status incidents -------------------------------------------------------------------

interface StatusIncident {
  id: string;
  title: string;
  url: string;
  started_at?: string | null;
  updated_at?: string | null;
  impact?: string | null;
  components?: string[] | null;
  updates: { at: string; status: string; message: string }[];
  impact_window?: { start_at?: string; end_at?: string; source?: string; context?: string }[] | null;
}

export function loadIncidents(root: string): StatusIncident[] {
  return readJsonl<StatusIncident>(datasetFile(root, 'github_status_incidents', 'incidents.jsonl'));
}

const lower = (s?: string | null) => (s ? s.toLowerCase() : undefined);
const defined = <T extends object>(o: T) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null)) as T;

/** A scraped status-page incident as an incident upload record (domain/contracts/incident.ts). */
export function incidentRecord(i: StatusIncident) {
  const last = i.updates[i.updates.length - 1];
  return {
    incident: defined({
      id: i.id,
      name: i.title,
      status: lower(last?.status),
      shortlink: i.url,
      started_at: i.started_at,
      updated_at: i.updated_at,
    }),
    components: (i.components ?? []).map((name) => ({ name })),
    updates: i.updates.map((u) =>
      defined({ impact: i.impact ?? undefined, status: lower(u.status), body: u.message, created_at: u.at }),
    ),
    ...(i.impact_window?.length ? { postmortem: { impact_window: i.impact_window } } : {}),
  };
}

// --- Articles for the ingestion benchmark --------------------------------------------------------

interface Dialogue {
  fname: string;
  dialogue: string;
  topic?: string;
  topic1?: string;
}

/** One source text of an article: a StackFAQ answer or a DialogSum dialogue. */
export interface ArticleSource {
  key: string;
  title: string;
  /** Markdown. */
  body: string;
}

/**
 * The source texts, in a fixed order: the 719 StackFAQ answers (thread order, titled with their
 * thread's question), then the DialogSum dev, test and hidden-test dialogues (titled with their topic,
 * one paragraph per turn).
 */
export function articleSources(root: string): ArticleSource[] {
  const { threads } = loadStackFaq(root);
  const answers = threads.flatMap((t) =>
    t.answers.map((a, i) => ({ key: `${t.thread_id}-a${i + 1}`, title: t.question, body: a })),
  );
  const hiddenTopics = new Map(
    readJsonl<{ fname: string; topic: string }>(datasetFile(root, 'dialogsum', 'dialogsum.hiddentest.topic.jsonl')).map(
      (t) => [t.fname, t.topic],
    ),
  );
  const dialogues = ['dialogsum.dev.jsonl', 'dialogsum.test.jsonl', 'dialogsum.hiddentest.dialogue.jsonl'].flatMap(
    (f) =>
      readJsonl<Dialogue>(datasetFile(root, 'dialogsum', f)).map((d) => ({
        key: d.fname,
        title: `Conversation: ${d.topic ?? d.topic1 ?? hiddenTopics.get(d.fname) ?? d.fname}`,
        body: d.dialogue
          .split('\n')
          .map((turn) => turn.trim())
          .filter(Boolean)
          .join('\n\n'),
      })),
  );
  return [...answers, ...dialogues];
}

/**
 * `count` articles from the N source texts: article k has source k mod N as its body and title, so
 * each text is used ceil(count / N) times at most. Every use is a distinct article, as in a
 * knowledge base segmented by product: its own synthetic id and url, and `productId`
 * `product-<r + 1>` for round r = floor(k / N).
 */
export function buildArticles(sources: readonly ArticleSource[], count: number) {
  if (sources.length === 0) throw new Error('no article sources');
  return Array.from({ length: count }, (_, k) => {
    const round = Math.floor(k / sources.length);
    const source = sources[k % sources.length];
    const articleId = `bench-${String(k).padStart(5, '0')}-${source.key}`;
    return {
      articleId,
      url: `https://kb.bench.example/articles/${articleId}`,
      title: source.title,
      body: source.body,
      productId: `product-${round + 1}`,
      timeOfCreation: T0 + k * 1000,
      timeLastPublished: T0 + k * 1000,
    };
  });
}
