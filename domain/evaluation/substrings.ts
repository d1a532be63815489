/**
 * Which of many strings occur in a text, in one pass over it (Aho–Corasick): the cost is the text's
 * length plus the strings' total length, where asking `text.includes(s)` for each costs their
 * product — a megabyte of output with thousands of links, checked against a megabyte of input.
 * Strings are compared by UTF-16 code units, exactly as `includes` compares them.
 */

/** `needles.map((s) => haystack.includes(s))`, in time linear in the haystack and the needles. */
export function occurIn(haystack: string, needles: readonly string[]): boolean[] {
  // The trie: node 0 is the root; an edge is keyed by node × 2^16 + code unit.
  const edges = new Map<number, number>();
  const parent: number[] = [0];
  const unit: number[] = [0];
  const depth: number[] = [0];
  const go = (node: number, c: number) => edges.get(node * 0x10000 + c);
  const ends = needles.map((needle) => {
    let node = 0;
    for (let i = 0; i < needle.length; i++) {
      const c = needle.charCodeAt(i);
      let next = go(node, c);
      if (next === undefined) {
        next = parent.length;
        parent.push(node);
        unit.push(c);
        depth.push(depth[node] + 1);
        edges.set(node * 0x10000 + c, next);
      }
      node = next;
    }
    return node;
  });

  // Failure links, shallowest nodes first: the longest proper suffix of a node's string in the trie.
  const byDepth = shallowFirst(depth);
  const fail = new Int32Array(parent.length);
  for (const node of byDepth) {
    if (depth[node] <= 1) continue;
    let f = fail[parent[node]];
    let next = go(f, unit[node]);
    while (next === undefined && f !== 0) {
      f = fail[f];
      next = go(f, unit[node]);
    }
    fail[node] = next ?? 0;
  }

  // One pass over the haystack; a node reached means its string and every suffix of it occur.
  const reached = new Uint8Array(parent.length);
  reached[0] = 1;
  let node = 0;
  for (let i = 0; i < haystack.length; i++) {
    const c = haystack.charCodeAt(i);
    let next = go(node, c);
    while (next === undefined && node !== 0) {
      node = fail[node];
      next = go(node, c);
    }
    node = next ?? 0;
    reached[node] = 1;
  }
  for (let k = byDepth.length - 1; k > 0; k--) if (reached[byDepth[k]]) reached[fail[byDepth[k]]] = 1;
  return ends.map((end) => reached[end] === 1);
}

/** Node numbers ordered by depth (a counting sort: a child is one deeper than its parent). */
function shallowFirst(depth: readonly number[]): Int32Array {
  const starts = new Int32Array(depth.reduce((a, d) => Math.max(a, d), 0) + 2);
  for (const d of depth) starts[d + 1] += 1;
  for (let d = 1; d < starts.length; d++) starts[d] += starts[d - 1];
  const order = new Int32Array(depth.length);
  depth.forEach((d, node) => {
    order[starts[d]++] = node;
  });
  return order;
}
