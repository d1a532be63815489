/** Request bodies for tests: small, valid by default, overridable. */

let n = 0;
const next = () => `${Date.now().toString(36)}${(n++).toString(36)}`;

export function article(o: Partial<Record<string, unknown>> = {}) {
  const id = (o.articleId as string) ?? `art-${next()}`;
  return {
    articleId: id,
    url: `https://help.example.com/${id}`,
    title: 'How to reset your password',
    body: '# Reset\n\nOpen **Settings**, choose *Security* and click Reset password. A link arrives by email.',
    timeOfCreation: 1_700_000_000_000,
    timeLastPublished: 1_700_000_100_000,
    ...o,
  };
}

export function supportCase(o: Partial<Record<string, unknown>> = {}) {
  const id = (o.id as string) ?? `case-${next()}`;
  return {
    id,
    subject: 'Printer does not connect to wifi',
    description: 'The office printer lost its wireless connection after the update.',
    url: `https://support.example.com/cases/${id}`,
    timeOfCreation: 1_700_000_000_000,
    comments: [
      {
        commentId: `${id}-c1`,
        comment: 'Restarting the router fixed it.',
        commenter: 'agent',
        isPublic: true,
        timeOfCreation: 1_700_000_000_500,
      },
    ],
    ...o,
  };
}

export function incident(o: Partial<Record<string, unknown>> = {}) {
  const id = `inc-${next()}`;
  return {
    incident: {
      id,
      name: 'Degraded performance for Git operations',
      status: 'resolved',
      shortlink: `https://stspg.io/${id}`,
      started_at: '2024-05-01T10:00:00Z',
      updated_at: '2024-05-01T12:00:00Z',
    },
    components: [{ id: 'c1', name: 'Git Operations', status: 'operational', last_updated_at: '2024-05-01T12:00:00Z' }],
    updates: [
      {
        impact: 'major',
        status: 'investigating',
        body: 'We are investigating reports of slow git pushes.',
        created_at: '2024-05-01T10:05:00Z',
        affected_components: [
          { name: 'Git Operations', old_status: 'operational', new_status: 'degraded_performance' },
        ],
      },
      {
        impact: 'major',
        status: 'resolved',
        body: 'Git pushes are fast again.',
        created_at: '2024-05-01T12:00:00Z',
        affected_components: [],
      },
    ],
    ...o,
  };
}
