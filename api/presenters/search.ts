/** Whitelisting presenters: only the spec's fields leave the API. */
import type { ArticleHit, CaseHit } from '../../activities/weaviate/retrieve';

export const presentCaseHit = (h: CaseHit) => ({
  id: h.id,
  subject: h.subject,
  url: h.url,
  timeOfCreation: h.timeOfCreation,
  productId: h.productId,
  score: Math.round(h.score * 1e6) / 1e6,
});

export const presentArticleHit = (h: ArticleHit) => ({ id: h.id, title: h.title, url: h.url, snippet: h.snippet });
