/** The permissions an API key can carry (docs/api.md, "Authentication and tenancy"). */
export const SCOPES = [
  'ask',
  'summary',
  'feedback',
  'tag',
  'sentiment',
  'articles:write',
  'cases:write',
  'incidents:write',
  'search',
  'evaluate',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
