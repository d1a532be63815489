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

/**
 * The scope that grants ask's agent view (`author: "agent"`: answers drawn from the tenant's cases
 * too). Decision: the scope that already lets a key read cases, through case search; an `ask` key
 * without it asking for the agent view gets 403, so `author` never widens what a key can read.
 */
export const AGENT_VIEW_SCOPE: Scope = 'search';
