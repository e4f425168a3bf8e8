/**
 * A cycle in the checks' dependencies as a file leaves them (issue 30): every check by its key,
 * with the keys it depends on. Returns the keys around the first cycle found, starting and
 * ending with the same key (`[a, b, a]`), or null. Nodes are visited in the order given, so the
 * answer is the same for the same file.
 */
export function dependencyCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const done = new Set<string>();
  const onPath: string[] = [];
  const onPathSet = new Set<string>();
  // Iterative depth-first search (a long chain of dependencies must not exhaust the stack).
  for (const start of graph.keys()) {
    if (done.has(start)) continue;
    const stack: Array<{ key: string; next: number }> = [{ key: start, next: 0 }];
    onPath.push(start);
    onPathSet.add(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const edges = graph.get(top.key) ?? [];
      if (top.next >= edges.length) {
        stack.pop();
        onPath.pop();
        onPathSet.delete(top.key);
        done.add(top.key);
        continue;
      }
      const to = edges[top.next++]!;
      if (onPathSet.has(to)) return [...onPath.slice(onPath.indexOf(to)), to];
      if (done.has(to) || !graph.has(to)) continue;
      stack.push({ key: to, next: 0 });
      onPath.push(to);
      onPathSet.add(to);
    }
  }
  return null;
}
