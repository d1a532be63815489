/**
 * The ordinary content of bench:isolation's tenants: a few dozen small support cases and articles
 * (so searches and asks find something), the other tenant's cheap requests, and its one-article
 * uploads. Made up here, deterministic, so the benchmark needs no dataset.
 */
import type { Article } from '../../domain/contracts/article';
import type { Case } from '../../domain/contracts/case';

const TOPICS = [
  ['Cannot log in after the password reset', 'The reset link works but the new password is refused at login.'],
  ['Card payment declined at checkout', 'My card is charged elsewhere but your checkout says declined.'],
  ['Invoice shows the wrong VAT number', 'The invoice of last month has our old VAT number on it.'],
  ['App crashes when opening settings', 'Since the update the app closes as soon as I open the settings page.'],
  ['Refund not received after ten days', 'I returned the order two weeks ago and the refund has not arrived.'],
  ['Two-factor codes arrive late', 'The SMS with the login code arrives after it has already expired.'],
  ['Export to CSV is empty', 'Exporting my orders gives a CSV file with only the header line.'],
  ['Delivery stuck in transit', 'Tracking has shown in transit for a week without any change.'],
  ['Cannot change the email address', 'Saving a new email address in my profile gives an error.'],
  ['Subscription renewed twice', 'I was charged twice for the yearly plan this month.'],
];

const SENTENCES = [
  'I already restarted the app and cleared the cache.',
  'Could you please check my account?',
  'Thanks for the quick reply, it works now.',
  'This is really urgent for our team.',
  'We tried it on two different devices.',
  'The error message says something went wrong.',
];

/** `count` small cases: a subject, a description and three short comments each. */
export function smallCases(prefix: string, count: number): Case[] {
  return Array.from({ length: count }, (_, i) => {
    const [subject, description] = TOPICS[i % TOPICS.length];
    return {
      id: `${prefix}-${i}`,
      subject: `${subject} (${i})`,
      description,
      status: 'open',
      timeOfCreation: 1_700_000_000_000 + i,
      comments: [0, 1, 2].map((k) => ({
        commentId: `${prefix}-${i}-${k}`,
        comment: SENTENCES[(i + k) % SENTENCES.length],
        commenter: k % 2 ? 'agent' : 'customer',
        isPublic: true,
        timeOfCreation: 1_700_000_000_000 + i + k,
      })),
    };
  });
}

/** One small article (about 1,500 characters). */
export function smallArticle(articleId: string, i: number): Article {
  const [title, problem] = TOPICS[i % TOPICS.length];
  const body = [
    `# ${title}`,
    problem,
    '## What to do',
    ...SENTENCES.map((s, k) => `${k + 1}. ${s} Then check the result in the app and try again after a minute.`),
    '## Still stuck?',
    'Contact support with your order number and a screenshot of the message you see.',
  ].join('\n\n');
  return {
    articleId,
    url: `https://help.example.com/${articleId}`,
    title,
    body,
    timeOfCreation: 1_700_000_000_000,
    timeLastPublished: 1_700_000_000_000,
    language: 'en',
  };
}

export const smallArticles = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => smallArticle(`${prefix}-${i}`, i));

/** The other tenant's searches and sentiment messages. */
export const MIX_SEARCHES = TOPICS.map(([subject]) => subject.toLowerCase());
export const MIX_MESSAGES = [
  'The app keeps crashing when I open the settings, please help.',
  'Thanks a lot, the refund arrived this morning!',
  'I have been waiting for a week and nobody answers, this is unacceptable.',
  'Can you tell me how to change my email address?',
];
