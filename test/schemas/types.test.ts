/**
 * Compile-time checks that FromSchema infers precise types (tsc fails on an unused @ts-expect-error).
 * At run time these only build values.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import type { ArticlesUploadRequest } from '../../domain/contracts/article';
import type { AskResponse } from '../../domain/contracts/ask';
import type { Case } from '../../domain/contracts/case';
import type { EvaluateRequest } from '../../domain/contracts/evaluation';
import type { IncidentUpload } from '../../domain/contracts/incident';
import type { SearchArticlesQuery } from '../../domain/contracts/search';
import type { SentimentResponse } from '../../domain/contracts/sentiment';
import type { UploadResult } from '../../domain/contracts/upload';

describe('inferred schema types', () => {
  it('follow required lists, enums, refs and defaults', () => {
    const supportCase: Case = {
      id: 'c',
      comments: [{ commentId: 'x', comment: '', commenter: 'a', timeOfCreation: 1 }],
    };
    // @ts-expect-error id is required
    const noId: Case = { subject: 's' };
    // @ts-expect-error comments are CaseComments ($ref resolved)
    const badComment: Case = { id: 'c', comments: [{ comment: 'no id' }] };
    const upload: ArticlesUploadRequest = {
      articles: [{ articleId: 'a', url: 'u', title: 't', body: 'b', timeOfCreation: 1, timeLastPublished: 1 }],
    };
    const incident: IncidentUpload = { incident: {}, components: [], updates: [] };
    // @ts-expect-error responseType is an enum
    const badType: AskResponse['responseType'] = 'other';
    // @ts-expect-error label is one of the five levels
    const badLabel: SentimentResponse['label'] = 'Mixed';
    const result: UploadResult = { result: 'partial', failed: [{ id: '/data/0', error: '/data/0/id is required' }] };
    // Defaulted fields are present after validation:
    const limit: number = ({} as SearchArticlesQuery).limit;
    const severity: 'critical' | 'warning' | 'info' = ({} as NonNullable<EvaluateRequest['rules']>[number]).severity;
    assert.ok([supportCase, noId, badComment, upload, incident, badType, badLabel, result, limit, severity]);
  });
});
