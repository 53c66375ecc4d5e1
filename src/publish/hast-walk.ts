/** The part of a hast node the walks below read and write. */
export interface HastNode {
  type?: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

/**
 * Unwraps every element deeper than `limit` (its children take its place, in order), so the
 * recursive hast utilities that run next never see a deep tree. Iterative: no stack per level.
 */
export function flattenDeeperThan(root: HastNode, limit: number): void {
  const pending: [HastNode, number][] = [[root, 0]];
  for (let item = pending.pop(); item; item = pending.pop()) {
    const [node, depth] = item;
    if (!node.children) continue;
    if (depth >= limit) {
      node.children = descendantsNotElements(node.children);
      continue;
    }
    for (const child of node.children) pending.push([child, depth + 1]);
  }
}

/** Every non-element under `nodes`, in document order: what is left of a subtree cut at the limit. */
function descendantsNotElements(nodes: HastNode[]): HastNode[] {
  const kept: HastNode[] = [];
  const pending = [...nodes].reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type !== 'element') kept.push(node);
    else for (let k = (node.children ?? []).length - 1; k >= 0; k--) pending.push(node.children![k]!);
  }
  return kept;
}

/**
 * Points in-page links (`href="#intro"`) at the ids the default schema prefixed (DOM
 * clobbering); GitHub fixes them in the browser with a script, doing it here keeps a table of
 * contents working without one. Iterative.
 */
export function pointFragmentLinks(root: HastNode, prefix: string): void {
  if (!prefix) return;
  const pending = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const href = node.tagName === 'a' ? node.properties?.href : undefined;
    if (node.properties && typeof href === 'string' && /^#./.test(href) && !href.startsWith(`#${prefix}`))
      node.properties.href = `#${prefix}${href.slice(1)}`;
    if (node.children) pending.push(...node.children);
  }
}
