/**
 * Reads a rule's plain-English description into a typed check the built-in judge can grade, or
 * `undefined` when it cannot read it (such a rule needs a model judge). The readers
 * (rule-families.ts) understand English variants of each family, not one template: "Answer with
 * at least 300 words", "no fewer than 300 words", "Use 300+ words" and "Keep it under 50 words" are
 * all length rules. A description that states several checkable things ("in English and in all
 * capital letters") becomes one check of kind `all`.
 */
import type { Check } from './checks';
import { READERS } from './rule-families';
import { RuleText } from './rule-text';

export type { Check } from './checks';

export function parseRule(description: string): Check | undefined {
  const rt = new RuleText(description);
  const checks: Check[] = [];
  for (const read of READERS) {
    const found = read(rt);
    if (found) checks.push(...(Array.isArray(found) ? found : [found]));
  }
  if (checks.length === 0) return undefined;
  return checks.length === 1 ? checks[0] : { kind: 'all', checks };
}
