/**
 * Tagged cases written for the tests of the tag engines (a few ways of asking the same thing, per
 * tag), and their upload with the wait for the training it starts.
 */
import { strict as assert } from 'node:assert';
import { waitForTagTraining } from '../../scripts/tag-trainer';
import { supportCase } from './factories';
import { api, getHarness } from './harness';

/** Cases written for these tests: a few ways of asking the same thing, per tag. */
export const TRAINING: Record<string, string[]> = {
  card_arrival: [
    'My new card has not arrived yet',
    'When will the card I ordered be delivered?',
    'Still waiting for my debit card in the mail',
    'The replacement card never showed up',
    'How long does card delivery take?',
  ],
  refund: [
    'I want my money back for the cancelled order',
    'Please refund the double charge on my account',
    'How do I get a refund for a returned item?',
    'The refund for my purchase has not been paid out',
    'Can I be reimbursed for the faulty product?',
  ],
  password_reset: [
    'I forgot my password and cannot log in',
    'How do I reset my password?',
    'The password reset email never comes',
    'Locked out of my account, need a new password',
    'Change my login password please',
  ],
};

let next = 0;
export const cases = (tags: Record<string, string[]>, extra: Record<string, unknown> = {}) =>
  Object.entries(tags).flatMap(([name, texts]) =>
    texts.map((subject) =>
      supportCase({ id: `tag-case-${next++}`, subject, description: '', comments: [], tags: [name], ...extra }),
    ),
  );

/** Uploads cases and waits for the training their upload starts (debounced, 1 s in tests). */
export async function uploadAndTrain(key: string, tenant: string, data: unknown[]) {
  const since = Date.now();
  const res = await api('POST', '/v1/cases', { key, body: { data } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const h = await getHarness();
  return waitForTagTraining({ client: h.temporal, tenant, since, timeoutMs: 60_000 });
}
