/**
 * Checks over a whole parsed JSON value that JSON Schema cannot express. Both walk with an explicit
 * stack, never recursion, so a body nested 100,000 levels deep costs no call stack.
 */

const escapeToken = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Whether a string holds a lone surrogate: String.prototype.isWellFormed (ES2024, native in Node 20),
 * a scan of a megabyte in about a millisecond, where a `u`-flag regular expression took 7 to 15.
 */
const illFormed = (text: string): boolean => !(text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * The JSON pointer of the first string (value or key) holding a lone UTF-16 surrogate, such as the
 * one `"\ud800x"` decodes to: text that is not valid Unicode and that no UTF-8 service can take.
 */
export function firstIllFormedText(value: unknown): string | undefined {
  // Each entry keeps its parent and key; the pointer is spelled out only for the string found.
  interface Entry {
    value: unknown;
    key?: string;
    parent?: Entry;
  }
  const pointerOf = (entry: Entry): string => {
    const keys: string[] = [];
    for (let e: Entry | undefined = entry; e?.key !== undefined; e = e.parent) keys.push(escapeToken(e.key));
    return keys
      .reverse()
      .map((key) => `/${key}`)
      .join('');
  };
  const stack: Entry[] = [{ value }];
  while (stack.length) {
    const entry = stack.pop()!;
    const current = entry.value;
    if (typeof current === 'string') {
      if (illFormed(current)) return pointerOf(entry);
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      if (illFormed(key)) return pointerOf({ value: undefined, key, parent: entry });
      stack.push({ value: (current as Record<string, unknown>)[key], key, parent: entry });
    }
  }
  return undefined;
}

/** Whether `value` nests objects and arrays more than `limit` levels deep, counting itself. */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length) {
    const top = stack.pop()!;
    if (typeof top.value !== 'object' || top.value === null) continue;
    const depth = top.depth + 1;
    if (depth > limit) return true;
    for (const child of Object.values(top.value))
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth });
  }
  return false;
}
