/** Knowledge articles: the upload record, the deletion record and their batch requests. */
import type { FromSchema } from 'json-schema-to-ts';
import { epochMillis, id, languageCode, LIMITS, str, uri } from './common';
import { uploadRequest, uploadValidators } from './upload';

export const ArticleSchema = {
  $id: 'Article',
  type: 'object',
  description: 'A knowledge article, used for answers and article search.',
  required: ['articleId', 'url', 'title', 'body', 'timeOfCreation', 'timeLastPublished'],
  additionalProperties: false,
  properties: {
    /** Unique article identifier; re-uploading the same id replaces the article. */
    articleId: id('Unique article identifier; re-uploading an article with the same id replaces it.'),
    /** Unique URL of the article. */
    url: uri('Unique URL of the article.'),
    /** Article title. */
    title: str(LIMITS.title, 'Article title.'),
    /** Full body in markdown or HTML. */
    body: str(LIMITS.text, 'Full body in markdown or HTML.'),
    /** Creation time, epoch ms. */
    timeOfCreation: epochMillis('Creation time.'),
    /** Last modification time, epoch ms. */
    timeLastPublished: epochMillis('Time of the last modification.'),
    /** Language of the article; detected when absent. */
    language: languageCode('Language of the article; detected from the text when absent.'),
    /** Addition: product the article belongs to, for product-segmented knowledge bases. */
    productId: id('Addition: product the article belongs to; ask and case search filter on it.'),
  },
} as const;
export type Article = FromSchema<typeof ArticleSchema>;

export const DeleteArticleSchema = {
  $id: 'DeleteArticle',
  type: 'object',
  description: 'An article to delete.',
  required: ['articleId'],
  additionalProperties: false,
  properties: {
    /** Identifier of the article to delete. */
    articleId: id('Identifier of the article to delete; deleting an unknown article is not an error.'),
  },
} as const;
export type DeleteArticle = FromSchema<typeof DeleteArticleSchema>;

export const ArticlesUploadRequestSchema = uploadRequest(
  'ArticlesUploadRequest',
  'articles',
  'Article',
  'Articles to upload.',
);
export type ArticlesUploadRequest = FromSchema<
  typeof ArticlesUploadRequestSchema,
  { references: [typeof ArticleSchema] }
>;

export const ArticlesDeleteRequestSchema = uploadRequest(
  'ArticlesDeleteRequest',
  'articles',
  'DeleteArticle',
  'Articles to delete.',
);
export type ArticlesDeleteRequest = FromSchema<
  typeof ArticlesDeleteRequestSchema,
  { references: [typeof DeleteArticleSchema] }
>;

/** Envelope and item validators of POST /v1/articles. */
export const articlesUpload = uploadValidators<Article>(ArticlesUploadRequestSchema, ArticleSchema, 'articleId');
/** Envelope and item validators of DELETE /v1/articles. */
export const articlesDelete = uploadValidators<DeleteArticle>(
  ArticlesDeleteRequestSchema,
  DeleteArticleSchema,
  'articleId',
);
