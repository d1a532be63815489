/** Whitelisting presenters: only the spec's fields leave the API. */
import type { ArticleHit, CaseHit } from '../../domain/weaviate/retrieve';
import { HTTP_URL_PATTERN } from '../../domain/contracts/common';

const HTTP_URL = new RegExp(HTTP_URL_PATTERN);
/** A stored link is shown only when it is a web link, whatever was accepted before uploads checked. */
const webLink = (url: string | undefined) => (url && HTTP_URL.test(url) ? url : undefined);

/** Fields a case did not have are left out rather than sent empty. */
export const presentCaseHit = (h: CaseHit) => ({
  id: h.id,
  ...(h.subject ? { subject: h.subject } : {}),
  ...(webLink(h.url) ? { url: h.url } : {}),
  ...(h.timeOfCreation ? { timeOfCreation: h.timeOfCreation } : {}),
  ...(h.productId ? { productId: h.productId } : {}),
  score: Math.round(h.score * 1e6) / 1e6,
});

export const presentArticleHit = (h: ArticleHit) => ({
  id: h.id,
  title: h.title,
  url: webLink(h.url) ?? '',
  snippet: h.snippet,
});
