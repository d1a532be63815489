import assert from 'node:assert/strict';
import { describe, it } from 'mocha';
import { firstErrorMessage } from '../../domain/contracts/ajv';
import { articlesDelete, articlesUpload } from '../../domain/contracts/article';
import { casesUpload } from '../../domain/contracts/case';
import { allItemsInvalid, checkUploadItems } from '../../domain/contracts/upload';

const comment = { commentId: 'c', comment: 'hi', commenter: 'ana', timeOfCreation: 1 };

describe('batch upload validation', () => {
  describe('envelope', () => {
    it('accepts 1 to 1,000 objects without looking inside them', () => {
      assert.equal(casesUpload.envelope({ data: [{ anything: 1 }] }), true);
      assert.equal(articlesUpload.envelope({ articles: Array.from({ length: 1000 }, () => ({})) }), true);
    });

    it('rejects a missing, empty, oversized or non-object list', () => {
      const cases: [unknown, string][] = [
        [{}, '/data is required'],
        [{ data: [] }, '/data must not be empty'],
        [{ data: Array.from({ length: 1001 }, () => ({})) }, '/data must NOT have more than 1000 items'],
        [{ data: [{}, 'x'] }, '/data/1 must be object'],
      ];
      for (const [body, message] of cases) {
        assert.equal(casesUpload.envelope(body), false);
        assert.equal(firstErrorMessage(casesUpload.envelope, ''), message);
      }
    });

    it('strips unknown top-level fields', () => {
      const body = { articles: [{ articleId: 'a' }], dryRun: true };
      assert.equal(articlesDelete.envelope(body), true);
      assert.deepEqual(body, { articles: [{ articleId: 'a' }] });
    });
  });

  describe('checkUploadItems', () => {
    it('keeps valid items (cleaned) and reports the bad ones by id and JSON pointer', () => {
      const body = {
        data: [
          { id: 'c0', extra: true },
          { id: 'c1', comments: [comment] },
          { subject: 'no id' },
          { id: 'c3', comments: [{ ...comment, commentId: undefined }] },
        ],
      };
      const { items, failed } = checkUploadItems(casesUpload, body);
      assert.deepEqual(items, [{ id: 'c0' }, { id: 'c1', comments: [comment] }]);
      assert.deepEqual(failed, [
        { id: '/data/2', error: '/data/2/id is required' },
        { id: 'c3', error: '/data/3/comments/0/commentId is required' },
      ]);
    });

    it('words the 400 for an upload none of whose items is valid', () => {
      const one = checkUploadItems(articlesDelete, { articles: [{ articleId: '' }] });
      assert.deepEqual(one.items, []);
      assert.equal(allItemsInvalid(one.failed), '/articles/0/articleId must not be empty');
      const two = checkUploadItems(casesUpload, { data: [{}, { id: 5 }] });
      assert.equal(allItemsInvalid(two.failed), 'all 2 items are invalid; first: /data/0/id is required');
    });
  });
});
