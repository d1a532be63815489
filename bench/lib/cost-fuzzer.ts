/**
 * The cost fuzzer: for every operation of the API, the most expensive requests it accepts as valid.
 * Sizes and counts go to the limits (docs/api.md, "Input limits": 1,000,000 characters per text,
 * 10,000 entries per list, 1,000 items and 10 MB per upload, 1.5 MiB per upload item, incident and
 * evaluate input), filled with the pathological texts of cost-patterns.ts. Every case is
 * deterministic from the seed and its name, and `checkCostRequest` proves it valid with the
 * project's own Ajv and the limits the API checks beyond the schemas (bench/isolation.ts sends them;
 * test/unit/cost-fuzzer.test.ts checks every one).
 *
 * Cases are built on demand (`build()`), since a few of them are 10 MB. Within an operation they come
 * heaviest first, by what is known of the service's costs (the requests of issue 33 first), so the
 * benchmark can take the first few.
 */
import type { AnySchemaObject, ValidateFunction } from 'ajv';
import { BODY_LIMIT } from '../../api/middlewares/body';
import { namedSchemas, operation, type OperationId } from '../../api/schemas/operations';
import { MAX_ITEM_BYTES } from '../../workflows/constants';
import { compile, configAjv, firstErrorMessage, paramAjv } from '../../domain/contracts/ajv';
import type { Article } from '../../domain/contracts/article';
import type { Case } from '../../domain/contracts/case';
import { LIMITS } from '../../domain/contracts/common';
import { MAX_RULES } from '../../domain/contracts/evaluation';
import { firstIllFormedText } from '../../domain/contracts/json-walk';
import { CASE_SEARCH_WINDOW } from '../../domain/contracts/search';
import { jsonBytes, patternText, rng, textWithin, type PatternName, type Rng } from './cost-patterns';

/** The operations the fuzzer covers; summary twice, for its two ways of naming the conversation. */
export const COST_OPERATIONS = {
  'upload-articles': 'uploadArticles',
  'upload-cases': 'uploadCases',
  'upload-incident': 'uploadIncident',
  'search-cases': 'searchCases',
  'search-articles': 'searchArticles',
  ask: 'ask',
  summary: 'summarize',
  'summary-conversation': 'summarize',
  sentiment: 'analyzeSentiment',
  tag: 'tagConversation',
  evaluate: 'evaluate',
  feedback: 'sendFeedback',
} as const satisfies Record<string, OperationId>;

export type CostOperation = keyof typeof COST_OPERATIONS;
export const COST_OPERATION_NAMES = Object.keys(COST_OPERATIONS) as CostOperation[];

/** A request as sent: JSON body, or query string for GET. */
export interface CostRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface CostCase {
  /** `<operation>/<pattern>-<shape>`, e.g. `summary/random-words-240x20000-4.8MB`. */
  name: string;
  operation: CostOperation;
  pattern: PatternName;
  /** The size in the name, in bytes: what the request fills (a limit), or its texts' characters. */
  nominalBytes: number;
  /** Ids of the setup cases (`costSetupCases`) the tenant must hold first (requests naming a `conversationId`). */
  setupCases?: string[];
  build(): CostRequest;
}

/** What the benchmark puts in place of these before sending. */
export const PLACEHOLDERS = {
  /** Feedback's `id`: an answer of the sending tenant (an unknown id is a 400). */
  answerId: 'cost-fuzzer-answer-id',
  /** Article search's `X-Business-Id`: the sending tenant's own name. */
  businessId: 'cost-fuzzer-business-id',
} as const;

/** 10 MB as koa-bodyparser reads it (`'10mb'`: mebibytes). */
function parseSize(size: string): number {
  const m = /^(\d+)(kb|mb)$/i.exec(size);
  if (!m) throw new Error(`unexpected body limit ${size}`);
  return Number(m[1]) * (m[2].toLowerCase() === 'mb' ? 1024 * 1024 : 1024);
}

/** The bounds the API checks, with a kilobyte of room for what it adds (the tenant in evaluate's input). */
export const COST_LIMITS = {
  bodyBytes: parseSize(BODY_LIMIT),
  itemBytes: MAX_ITEM_BYTES,
  /** Request line and headers the HTTP server reads (431 above). */
  requestLineBytes: 16 * 1024,
};
const ROOM = 1024;
const BODY = COST_LIMITS.bodyBytes - ROOM;
const ITEM = COST_LIMITS.itemBytes - ROOM;

/** Code units of a text of `pattern` that stay within `codePoints` (emoji are two units each). */
const units = (pattern: PatternName, codePoints: number) => (pattern === 'emoji' ? 2 * codePoints : codePoints);
const text = (pattern: PatternName, r: Rng, codePoints: number, maxJsonBytes = Infinity) =>
  textWithin(pattern, r, { maxChars: units(pattern, codePoints), maxJsonBytes });
/** An identifier of exactly `length` characters starting with `prefix`. */
const longId = (prefix: string, length: number = LIMITS.id) => prefix.padEnd(length, '-');
const TIME = 1_700_000_000_000;

function sizeLabel(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)}MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)}KB`;
  return `${bytes}B`;
}

/** `count` texts of `pattern`, each at most `LIMITS.text` code points, whose JSON strings take at most `bytes` together. */
function textsWithin(o: { pattern: PatternName; r: Rng; count: number; bytes: number }): string[] {
  const each = Math.floor(o.bytes / o.count);
  return Array.from({ length: o.count }, () => text(o.pattern, o.r, LIMITS.text, each));
}

/** JSON bytes left for `count` texts in `shell`, which holds them as empty strings (`""`, 2 bytes each). */
const roomIn = (limit: number, shell: unknown, count: number) => limit - jsonBytes(shell) + 2 * count;

// ---------------------------------------------------------------------------------------------
// Setup cases: big cases a tenant uploads first, which the conversationId requests then name.

export interface SetupCase {
  id: string;
  pattern: PatternName;
  comments: number;
  build(): Case;
}

function bigCase(o: { id: string; pattern: PatternName; comments: number; seed: string }): SetupCase {
  return {
    id: o.id,
    pattern: o.pattern,
    comments: o.comments,
    build() {
      const r = rng(`${o.seed}:setup:${o.id}`);
      const shell = (comment: (i: number) => string, description: string): Case => ({
        id: o.id,
        subject: text(o.pattern, r, LIMITS.title),
        description,
        status: 'open',
        comments: Array.from({ length: o.comments }, (_, i) => ({
          commentId: `c${i}`,
          comment: comment(i),
          commenter: i % 2 ? 'agent' : 'customer',
          isPublic: true,
          timeOfCreation: TIME + i,
        })),
      });
      const empty = shell(() => '', '');
      const count = o.comments + 1;
      const [description, ...comments] = textsWithin({
        pattern: o.pattern,
        r,
        count,
        bytes: roomIn(ITEM, empty, count),
      });
      return shell((i) => comments[i], description);
    },
  };
}

/** The big cases of the conversationId requests: 240 long comments (issue 33) and 10,000 short ones. */
export function costSetupCases(seed = 'isolation'): SetupCase[] {
  return [
    bigCase({ id: 'cost-case-random-words-240', pattern: 'random-words', comments: 240, seed }),
    bigCase({ id: 'cost-case-random-sentences-10000', pattern: 'random-sentences', comments: 10_000, seed }),
    bigCase({ id: 'cost-case-separators-240', pattern: 'separators', comments: 240, seed }),
  ];
}

// ---------------------------------------------------------------------------------------------
// One builder per operation.

type Builder = (r: Rng) => CostRequest;
interface Spec {
  shape: string;
  pattern: PatternName;
  /** The nominal size for the name (characters, or JSON bytes of a budget filled). */
  size: number;
  setupCases?: string[];
  build: Builder;
}

const post = (path: string, body: Record<string, unknown>, headers?: Record<string, string>): CostRequest => ({
  method: 'POST',
  path,
  body,
  ...(headers ? { headers } : {}),
});

const SUMMARY = operation('summarize').path;

function summaryComments(pattern: PatternName, count: number, chars: number | undefined): Spec {
  const budget = chars === undefined;
  return {
    pattern,
    shape: budget ? `${count}-comments` : `${count}x${chars}`,
    size: budget ? BODY : count * chars,
    build: (r) => {
      if (!budget)
        return post(SUMMARY, {
          comments: Array.from({ length: count }, () => ({ comment: patternText(pattern, r, chars) })),
        });
      const shell = {
        subject: text(pattern, r, LIMITS.title),
        comments: Array.from({ length: count }, () => ({ comment: '' })),
        format: 'html',
      };
      const texts = textsWithin({ pattern, r, count, bytes: roomIn(BODY, shell, count) });
      shell.comments.forEach((c, i) => (c.comment = texts[i]));
      return post(SUMMARY, shell);
    },
  };
}

function summarySpecs(): Spec[] {
  const rest: PatternName[] = [
    'separators',
    'mixed-scripts',
    'markdown-soup',
    'html-soup',
    'long-word',
    'emoji',
    'bidi-controls',
  ];
  return [
    summaryComments('random-words', 240, 20_000),
    summaryComments('random-sentences', 10_000, undefined),
    summaryComments('random-sentences', 10, undefined),
    ...rest.map((p) => summaryComments(p, 10, undefined)),
  ];
}

function summaryConversationSpecs(seed: string): Spec[] {
  return costSetupCases(seed).map((c) => ({
    pattern: c.pattern,
    shape: `${c.comments}-comments`,
    size: ITEM,
    setupCases: [c.id],
    build: () => post(SUMMARY, { conversationId: c.id }),
  }));
}

/** Sentiment and tag take the same request: one message. */
function messageSpecs(op: 'analyzeSentiment' | 'tagConversation'): Spec[] {
  const patterns: PatternName[] = [
    'random-words',
    'random-sentences',
    'mixed-scripts',
    'emoji',
    'long-word',
    'separators',
    'html-soup',
    'markdown-soup',
    'bidi-controls',
    'secrets',
  ];
  return patterns.map((pattern) => ({
    pattern,
    shape: '1M',
    size: LIMITS.text,
    build: (r) =>
      post(operation(op).path, {
        conversationId: longId('cost-conversation'),
        message: text(pattern, r, LIMITS.text, BODY - 2 * LIMITS.id),
      }),
  }));
}

/** Rules the built-in judge reads, of every family, with their category and severity spelled out. */
const RULE_TEXTS = [
  'The answer must not contain any email addresses.',
  'The answer must not contain any phone numbers.',
  'The answer must not contain any credit card numbers.',
  'The answer must not contain secrets such as API keys, tokens, private keys or passwords.',
  'The answer should contain less than 300 words.',
  "The answer is written in the same language as the user's last message.",
  'The answer is polite and professional in tone.',
  "The answer stays on the user's question and does not drift to unrelated topics.",
  'The answer only links to URLs that appear in the conversation or the provided sources.',
  'The answer must contain a link to the help center.',
  'Include the keywords refund and warranty',
  'The word "refund" should appear at least 2 times.',
  'Mention "delay" fewer than 2 times.',
  'Do not include any links.',
  'There should be 2 paragraphs. Paragraphs are separated with the markdown divider: ***',
  'Reply in 2 paragraphs separated by a blank line.',
  'The entire output should be in JSON format',
  'Include a title wrapped in double angular brackets, such as <<poem of joy>>',
  'Start your reply with "Hi there".',
  'At the end of your response, add a postscript starting with P.P.S',
  'Answer with at least 300 words.',
  'Your answer must contain exactly 3 bullet points.',
  'Highlight at least 2 sections with markdown, i.e. *highlighted section*.',
  'Your entire response should be in English, and in all capital letters.',
  'In your response, the letter e should appear at least 30 times.',
  'Do not use any commas in your response.',
  'Wrap your entire response with double quotation marks.',
  'Finish your response with this exact phrase: Is there anything else I can help with?',
  'The response must contain at least 2 placeholders represented by square brackets, such as [address].',
  'Your response must have 3 sections. Mark the beginning of each section with SECTION X.',
];
const CATEGORIES = ['Compliance', 'Format', 'Language', 'Tone', 'Accuracy', 'Custom'];
const SEVERITIES = ['critical', 'warning', 'info'];

const rules = () =>
  Array.from({ length: MAX_RULES }, (_, i) => ({
    id: longId(`rule-${i}`, 64),
    description: RULE_TEXTS[i % RULE_TEXTS.length],
    category: CATEGORIES[i % CATEGORIES.length],
    severity: SEVERITIES[i % SEVERITIES.length],
  }));

function evaluateSpecs(): Spec[] {
  const patterns: PatternName[] = [
    'emails',
    'links',
    'phones',
    'digit-groups',
    'secrets',
    'random-sentences',
    'mixed-scripts',
    'markdown-soup',
    'html-soup',
    'long-url',
    'bidi-controls',
  ];
  return patterns.map((pattern) => ({
    pattern,
    shape: '1M-output-100-rules',
    size: ITEM,
    build: (r) => {
      const ruleList = rules();
      const system = { role: 'system', content: patternText('random-sentences', r, 2000) };
      // What the API measures: the messages, output and rules, with the tenant and use case.
      const fixed = jsonBytes({ tenant: longId('t', 64), useCase: longId('u', 64), rules: ruleList, system });
      const room = ITEM - fixed - 200;
      const output = text(pattern, r, LIMITS.text, Math.floor(room * 0.7));
      const user = text(pattern, r, LIMITS.text, room - jsonBytes(output));
      return post(operation('evaluate').path, {
        messages: [system, { role: 'user', content: user }],
        output,
        rules: ruleList,
      });
    },
  }));
}

function article(o: { prefix: string; i: number; pattern: PatternName; r: Rng; bodyBytes: number }): Article {
  const shell: Article = {
    articleId: longId(`${o.prefix}-${o.i}-`),
    url: `https://a.b/${o.prefix}/${o.i}/`.padEnd(LIMITS.url, 'x'),
    title: text(o.pattern, o.r, LIMITS.title),
    body: '',
    timeOfCreation: TIME,
    timeLastPublished: TIME,
    productId: longId('cost-product'),
  };
  shell.body = text(o.pattern, o.r, LIMITS.text, roomIn(o.bodyBytes, shell, 1));
  return shell;
}

function articleSpecs(): Spec[] {
  const big = (pattern: PatternName): Spec => ({
    pattern,
    shape: '10-articles',
    size: BODY,
    build: (r) => {
      const bodyBytes = Math.min(ITEM, Math.floor(BODY / 10) - 8);
      const articles = Array.from({ length: 10 }, (_, i) =>
        article({ prefix: `cost-${pattern}`, i, pattern, r, bodyBytes }),
      );
      return post(operation('uploadArticles').path, { articles });
    },
  });
  const many: Spec = {
    pattern: 'markdown-soup',
    shape: '1000-articles',
    size: BODY,
    build: (r) => {
      const bodyBytes = Math.floor(BODY / LIMITS.uploadItems) - 8;
      const articles = Array.from({ length: LIMITS.uploadItems }, (_, i) =>
        article({ prefix: 'cost-many', i, pattern: 'markdown-soup', r, bodyBytes }),
      );
      return post(operation('uploadArticles').path, { articles });
    },
  };
  const patterns: PatternName[] = [
    'brackets',
    'emphasis',
    'random-sentences',
    'html-soup',
    'markdown-soup',
    'separators',
    'mixed-scripts',
    'long-word',
    'emoji',
  ];
  return [...patterns.slice(0, 3).map(big), many, ...patterns.slice(3).map(big)];
}

/** A free-form object nested as deep as allowed (32 levels, counting itself). */
const nested = (depth: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 1; i < depth; i++) value = { [`level${depth - i}`]: value, list: [1, 2, 3] };
  return value;
};

function caseRecord(o: { id: string; pattern: PatternName; r: Rng; bytes: number; comments: number }): Case {
  const shell: Case = {
    id: longId(o.id),
    subject: text(o.pattern, o.r, LIMITS.title),
    description: '',
    status: 'open',
    priority: 'urgent',
    type: 'question',
    brand_id: longId('brand'),
    form_id: longId('form'),
    tags: ['billing', 'login'],
    timeOfCreation: TIME,
    comments: Array.from({ length: o.comments }, (_, i) => ({
      commentId: `c${i}`,
      comment: '',
      commenter: 'customer',
      isPublic: i % 3 !== 0,
      timeOfCreation: TIME + i,
    })),
    url: `https://a.b/case/${o.id}`,
    custom_fields: nested(LIMITS.freeFormDepth),
    source: 'email',
  };
  const count = o.comments + 1;
  const [description, ...comments] = textsWithin({
    pattern: o.pattern,
    r: o.r,
    count,
    bytes: roomIn(o.bytes, shell, count),
  });
  shell.description = description;
  shell.comments!.forEach((c, i) => (c.comment = comments[i]));
  return shell;
}

function caseSpecs(): Spec[] {
  const path = operation('uploadCases').path;
  const few = (pattern: PatternName, comments: number): Spec => ({
    pattern,
    shape: `6-cases-${comments}-comments`,
    size: 6 * ITEM,
    build: (r) => {
      const bytes = Math.min(ITEM, Math.floor(BODY / 6) - 8);
      const data = Array.from({ length: 6 }, (_, i) =>
        caseRecord({ id: `cost-${pattern}-${i}`, pattern, r, bytes, comments }),
      );
      return post(path, { data });
    },
  });
  const many: Spec = {
    pattern: 'random-sentences',
    shape: '1000-cases',
    size: BODY,
    build: (r) => {
      const bytes = Math.floor(BODY / LIMITS.uploadItems) - 8;
      const data = Array.from({ length: LIMITS.uploadItems }, (_, i) =>
        caseRecord({ id: `cost-many-${i}`, pattern: 'random-sentences', r, bytes, comments: 3 }),
      );
      return post(path, { data });
    },
  };
  // Tags make the upload start the tenant's tag trainer too.
  const tagged: Spec = {
    pattern: 'random-words',
    shape: '6-cases-5000-tags',
    size: 6 * 5000 * LIMITS.label,
    build: (r) => {
      const data = Array.from({ length: 6 }, (_, i) => {
        const c = caseRecord({ id: `cost-tags-${i}`, pattern: 'random-words', r, bytes: 20_000, comments: 2 });
        c.tags = Array.from({ length: 5000 }, (_, t) =>
          `${t} ${patternText('random-words', r, LIMITS.label)}`.slice(0, LIMITS.label),
        );
        return c;
      });
      return post(path, { data });
    },
  };
  const links: Spec = {
    pattern: 'links',
    shape: '6-cases-10000-kb-links',
    size: 6 * ITEM,
    build: (r) => {
      const bytes = Math.min(ITEM, Math.floor(BODY / 6) - 8);
      const data = Array.from({ length: 6 }, (_, i) => {
        const kb = Array.from({ length: LIMITS.listItems }, (_, k) => `http://a.b/${i}/${k}`);
        const c = caseRecord({
          id: `cost-links-${i}`,
          pattern: 'links',
          r,
          bytes: bytes - jsonBytes(kb),
          comments: 240,
        });
        c.kb_links = kb;
        return c;
      });
      return post(path, { data });
    },
  };
  return [few('random-words', 240), many, tagged, few('html-soup', 240), few('brackets', 240), links];
}

function incidentSpecs(): Spec[] {
  const path = operation('uploadIncident').path;
  const record = (o: { pattern: PatternName; r: Rng; updates: number; components: number }) => {
    const shell = {
      incident: {
        id: longId(`cost-incident-${o.pattern}-${o.updates}-${o.components}`),
        name: text(o.pattern, o.r, LIMITS.title),
        status: 'investigating',
        shortlink: 'https://a.b/i',
        started_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T01:00:00Z',
      },
      components: Array.from({ length: o.components }, (_, i) => ({
        id: `comp-${i}`,
        name: `Component ${i}`,
        status: 'major_outage',
        last_updated_at: '2026-01-01T00:00:00Z',
      })),
      // Only the first update says which components changed: 10,000 updates leave room for little else.
      updates: Array.from({ length: o.updates }, (_, i) => ({
        body: '',
        created_at: '2026-01-01T00:00:00Z',
        ...(i === 0
          ? {
              impact: 'major',
              status: 'investigating',
              affected_components: [{ name: 'Component 0', old_status: 'operational', new_status: 'major_outage' }],
            }
          : {}),
      })),
      postmortem: nested(LIMITS.freeFormDepth),
    };
    const bodies = textsWithin({ pattern: o.pattern, r: o.r, count: o.updates, bytes: roomIn(ITEM, shell, o.updates) });
    shell.updates.forEach((u, i) => (u.body = bodies[i]));
    return shell;
  };
  const spec = (pattern: PatternName, updates: number, components: number): Spec => ({
    pattern,
    shape: `${updates}-updates-${components}-components`,
    size: Math.min(ITEM, updates * LIMITS.text),
    build: (r) => post(path, record({ pattern, r, updates, components })),
  });
  return [
    spec('random-sentences', LIMITS.listItems, 10),
    spec('brackets', 1, 10),
    spec('random-words', 10, LIMITS.listItems),
    spec('html-soup', 2, 10),
    spec('markdown-soup', 2, 10),
    spec('emphasis', 1, 10),
  ];
}

function searchCaseSpecs(seed: string): Spec[] {
  const path = operation('searchCases').path;
  const page = { offset: CASE_SEARCH_WINDOW - 100, limit: 100 };
  const conversation = costSetupCases(seed)
    .slice(0, 2)
    .map((c): Spec => ({
      pattern: 'random-words',
      shape: `conversation-${c.id.replace('cost-case-', '')}`,
      size: ITEM,
      setupCases: [c.id],
      build: (r) => post(path, { conversationId: c.id, query: text('random-words', r, LIMITS.query), ...page }),
    }));
  const products: Spec = {
    pattern: 'random-words',
    shape: 'many-products-100-filter-urls',
    size: LIMITS.query,
    build: (r) => {
      // As many products as the field takes: each one is searched on its own.
      const products: string[] = [];
      let length = -1; // the first one has no comma before it
      while (length + `,p${products.length}`.length <= LIMITS.url) {
        length += `,p${products.length}`.length;
        products.push(`p${products.length}`);
      }
      const productId = products.join(',');
      return post(path, {
        query: text('random-words', r, LIMITS.query),
        productId,
        formId: longId('form'),
        sourceBrandId: longId('brand'),
        filterUrls: Array.from({ length: 100 }, (_, i) => `https://a.b/${i}/`.padEnd(LIMITS.url, 'u')),
        ...page,
      });
    },
  };
  const queries = (['random-words', 'mixed-scripts', 'emoji', 'long-word', 'separators'] as PatternName[]).map(
    (pattern): Spec => ({
      pattern,
      shape: '10000',
      size: LIMITS.query,
      build: (r) => post(path, { query: text(pattern, r, LIMITS.query), ...page }),
    }),
  );
  return [...conversation, products, ...queries];
}

function searchArticleSpecs(): Spec[] {
  const op = operation('searchArticles');
  // The most passages a search may fetch: (offset + limit) x 4 reaches the cap of 1,000.
  const page = { offset: '150', limit: '100' };
  return (['random-words', 'mixed-scripts', 'emoji', 'long-word', 'separators', 'bidi-controls'] as PatternName[]).map(
    (pattern): Spec => ({
      pattern,
      shape: '1000',
      size: LIMITS.urlQuery,
      build: (r) => ({
        method: 'GET',
        path: op.path,
        query: { text: text(pattern, r, LIMITS.urlQuery), ...page },
        headers: { 'X-Business-Id': PLACEHOLDERS.businessId },
      }),
    }),
  );
}

function askSpecs(): Spec[] {
  const path = operation('ask').path;
  return (
    [
      'random-sentences',
      'random-words',
      'mixed-scripts',
      'emoji',
      'long-word',
      'markdown-soup',
      'bidi-controls',
    ] as PatternName[]
  ).map((pattern) => ({
    pattern,
    shape: '10000',
    size: LIMITS.query,
    build: (r) => post(path, { query: text(pattern, r, LIMITS.query), author: 'agent' }),
  }));
}

function feedbackSpecs(): Spec[] {
  const path = operation('sendFeedback').path;
  return (['random-sentences', 'mixed-scripts', 'emoji', 'separators'] as PatternName[]).map((pattern) => ({
    pattern,
    shape: '10000',
    size: LIMITS.query,
    build: (r) =>
      post(path, { id: PLACEHOLDERS.answerId, feedbackDetails: `-1 ${text(pattern, r, LIMITS.query - 3)}` }),
  }));
}

/**
 * Every case of the fuzzer, per operation heaviest first (as far as the service's costs are known).
 * The same seed gives the same requests.
 */
export function costCases(o: { seed?: string } = {}): CostCase[] {
  const seed = o.seed ?? 'isolation';
  const specs: Record<CostOperation, Spec[]> = {
    'upload-articles': articleSpecs(),
    'upload-cases': caseSpecs(),
    'upload-incident': incidentSpecs(),
    'search-cases': searchCaseSpecs(seed),
    'search-articles': searchArticleSpecs(),
    ask: askSpecs(),
    summary: summarySpecs(),
    'summary-conversation': summaryConversationSpecs(seed),
    sentiment: messageSpecs('analyzeSentiment'),
    tag: messageSpecs('tagConversation'),
    evaluate: evaluateSpecs(),
    feedback: feedbackSpecs(),
  };
  return COST_OPERATION_NAMES.flatMap((op) =>
    specs[op].map((spec): CostCase => {
      const name = `${op}/${spec.pattern}-${spec.shape}-${sizeLabel(spec.size)}`;
      return {
        name,
        operation: op,
        pattern: spec.pattern,
        nominalBytes: spec.size,
        ...(spec.setupCases ? { setupCases: spec.setupCases } : {}),
        build: () => spec.build(rng(`${seed}:${name}`)),
      };
    }),
  );
}

/** The first `n` cases of an operation: its heaviest. */
export const heaviest = (cases: readonly CostCase[], op: CostOperation, n: number) =>
  cases.filter((c) => c.operation === op).slice(0, n);

// ---------------------------------------------------------------------------------------------
// Validity: the operation's schemas, with the project's Ajv, and the limits beyond them.

/**
 * Ajv as the API configures it, except that an unknown field is an error rather than dropped, so
 * a request that passes sends nothing the API would ignore.
 */
const strict = (schema: AnySchemaObject) => compile(configAjv, schema, namedSchemas);

const headerValidators = new Map<string, ValidateFunction>();
/** The operation's declared headers as one object schema, as the API's `validate` checks them. */
function headersValidator(op: ReturnType<typeof operation>): ValidateFunction {
  let validate = headerValidators.get(op.operationId);
  if (!validate) {
    const headers = op.headers ?? [];
    validate = compile(paramAjv, {
      type: 'object',
      properties: Object.fromEntries(headers.map((h) => [h.name, h.schema])),
      required: headers.filter((h) => h.required).map((h) => h.name),
    });
    headerValidators.set(op.operationId, validate);
  }
  return validate;
}

/** The problems of a request for its case's operation; none for a valid one. */
export function checkCostRequest(c: Pick<CostCase, 'operation'>, req: CostRequest): string[] {
  const op = operation(COST_OPERATIONS[c.operation]);
  const problems: string[] = [];
  if (req.method !== op.method || req.path !== op.path)
    problems.push(`${req.method} ${req.path} is not ${op.operationId} (${op.method} ${op.path})`);
  if (op.body) {
    if (!req.body) return [...problems, 'the body is missing'];
    const validate = strict(op.body);
    // Ajv fills in defaults: check a copy, so the request stays as generated.
    if (!validate(structuredClone(req.body))) problems.push(`schema: ${firstErrorMessage(validate, '')}`);
    const illFormed = firstIllFormedText(req.body);
    if (illFormed !== undefined) problems.push(`${illFormed || 'body'} is not valid Unicode`);
    const bytes = jsonBytes(req.body);
    if (bytes > COST_LIMITS.bodyBytes) problems.push(`the body is ${bytes} bytes, over ${COST_LIMITS.bodyBytes}`);
    problems.push(...itemProblems(c.operation, req.body));
  } else if (req.body) problems.push(`${op.operationId} takes no body`);
  if (op.query) {
    const query = { ...(req.query ?? {}) };
    const validate = compile(paramAjv, op.query);
    if (!validate(query)) problems.push(`query: ${firstErrorMessage(validate, 'query parameter')}`);
    const line = `${req.method} ${req.path}?${new URLSearchParams(req.query)} HTTP/1.1`;
    // The key, the business id and the other headers take the rest of the 16 KB.
    if (Buffer.byteLength(line) > COST_LIMITS.requestLineBytes - 2048)
      problems.push(`the request line is ${Buffer.byteLength(line)} bytes`);
  }
  const headers = headersValidator(op);
  if (!headers({ ...(req.headers ?? {}) })) problems.push(`headers: ${firstErrorMessage(headers, 'header')}`);
  return problems;
}

/** The limits the API checks past the schema, per operation. */
function itemProblems(op: CostOperation, body: Record<string, unknown>): string[] {
  const over = (what: string, value: unknown, limit = COST_LIMITS.itemBytes) => {
    const bytes = jsonBytes(value);
    return bytes > limit ? [`${what} is ${bytes} bytes as JSON, over ${limit}`] : [];
  };
  switch (op) {
    case 'upload-articles':
      return (body.articles as unknown[]).flatMap((a, i) => over(`/articles/${i}`, a));
    case 'upload-cases':
      return (body.data as unknown[]).flatMap((a, i) => over(`/data/${i}`, a));
    case 'upload-incident':
      return over('the incident', body);
    case 'evaluate': {
      const { messages, output, rules: ruleList } = body;
      return over('the input', { tenant: longId('t', 64), useCase: 'default', messages, output, rules: ruleList });
    }
    case 'search-cases': {
      const { offset, limit } = body as { offset?: number; limit?: number };
      const paginated = offset !== undefined || limit !== undefined;
      const window = (offset ?? 0) + (limit ?? 25);
      return paginated && window > CASE_SEARCH_WINDOW ? [`offset + limit is ${window}`] : [];
    }
    default:
      return [];
  }
}

/** A setup case's problems: the case schema and the item size. */
export function checkSetupCase(c: Case): string[] {
  const validate = strict(namedSchemas.find((s) => s.$id === 'Case')!);
  const problems = validate(structuredClone(c)) ? [] : [`schema: ${firstErrorMessage(validate, '')}`];
  const bytes = jsonBytes(c);
  if (bytes > COST_LIMITS.itemBytes) problems.push(`${bytes} bytes as JSON, over ${COST_LIMITS.itemBytes}`);
  return problems;
}
