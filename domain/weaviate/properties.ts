/**
 * The properties of each Weaviate collection (collections.ts, SPECS), as the client reads and writes them: TEXT is a
 * string, TEXT_ARRAY a string list, INT and NUMBER numbers, BOOLEAN a boolean. Type aliases, not interfaces: the
 * client's `Properties` constraint wants an index signature, which only aliases have implicitly. A read that names
 * some properties (`returnProperties`) gets only those; an object stored before a property existed lacks it.
 */

export type ArticlePassageProperties = {
  articleId: string;
  passageIndex: number;
  passageCount: number;
  title: string;
  heading: string;
  text: string;
  url: string;
  language: string;
  productId: string;
  timeOfCreation: number;
  timeLastPublished: number;
};

export type ArticleTitleProperties = { articleId: string; productId: string };

export type SupportCaseProperties = {
  caseId: string;
  subject: string;
  description: string;
  comments: string;
  privateComments: string;
  commentsJson: string;
  status: string;
  priority: string;
  type: string;
  brandId: string;
  formId: string;
  tags: string[];
  timeOfCreation: number;
  url: string;
  customFieldsJson: string;
  kbLinks: string[];
  source: string;
  spam: boolean;
  productId: string;
};

export type IncidentProperties = {
  incidentId: string;
  name: string;
  status: string;
  impact: string;
  shortlink: string;
  text: string;
  components: string[];
  startedAt: string;
  updatedAt: string;
  recordJson: string;
};

export type ApiKeyProperties = {
  keyHash: string;
  keyId: string;
  tenant: string;
  scopes: string[];
  name: string;
  createdAt: number;
  revokedAt: number;
};

export type BusinessProperties = { businessId: string; tenant: string };

export type AskAnswerProperties = {
  answerId: string;
  chatId: string;
  question: string;
  standalone: string;
  answer: string;
  responseType: string;
  language: string;
  author: string;
  engine: string;
  sourcesJson: string;
  createdAt: number;
};

export type AskFeedbackProperties = { answerId: string; details: string; rating: number; createdAt: number };

export type TagModelProperties = {
  kind: string;
  version: number;
  chunkIndex: number;
  chunkCount: number;
  data: string;
};

export type EvalResultProperties = {
  recordId: string;
  runId: string;
  model: string;
  judge: string;
  useCase: string;
  loggedAt: number;
  latencyMs: number;
  metadataJson: string;
  messagesJson: string;
  output: string;
  verdict: string;
  score: number;
  rulesJson: string;
  redactions: number;
  gradedAt: number;
};

export type RateCountProperties = { subject: string; window: number; instance: string; count: number };

export type TokenUsageProperties = {
  day: number;
  tenant: string;
  capability: string;
  model: string;
  instance: string;
  promptTokens: number;
  completionTokens: number;
  calls: number;
};

/** Each collection's properties, by the collection's name (COLLECTIONS). */
export type CollectionProperties = {
  ArticlePassage: ArticlePassageProperties;
  ArticleTitle: ArticleTitleProperties;
  SupportCase: SupportCaseProperties;
  Incident: IncidentProperties;
  ApiKey: ApiKeyProperties;
  Business: BusinessProperties;
  RateCount: RateCountProperties;
  TokenUsage: TokenUsageProperties;
  AskAnswer: AskAnswerProperties;
  AskFeedback: AskFeedbackProperties;
  TagModel: TagModelProperties;
  EvalResult: EvalResultProperties;
};
