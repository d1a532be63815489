/** Whitelisting presenters: only the spec's fields leave the API. */
import type { ArticleHit, CaseHit } from '../../activities/weaviate/retrieve';

/** Fields a case did not have are left out rather than sent empty. */
export const presentCaseHit = (h: CaseHit) => ({
  id: h.id,
  ...(h.subject ? { subject: h.subject } : {}),
  ...(h.url ? { url: h.url } : {}),
  ...(h.timeOfCreation ? { timeOfCreation: h.timeOfCreation } : {}),
  ...(h.productId ? { productId: h.productId } : {}),
  score: Math.round(h.score * 1e6) / 1e6,
});

export const presentArticleHit = (h: ArticleHit) => ({ id: h.id, title: h.title, url: h.url, snippet: h.snippet });
