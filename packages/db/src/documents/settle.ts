/**
 * Split, run, scatter back: a stage of a write settles some items with a row of its own (a
 * refusal, a conflict, a `_local` write) and hands the rest to the next stage, whose rows go back
 * to their items' places. `settleOne` is awaited in item order, one at a time.
 */
export async function settle<T, R>(
  items: readonly T[],
  settleOne: (item: T, index: number) => R | undefined | Promise<R | undefined>,
  run: (rest: T[], at: readonly number[]) => Promise<R[]>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  const rest: T[] = [];
  const at: number[] = [];
  for (const [k, item] of items.entries()) {
    const row = await settleOne(item, k);
    if (row === undefined) {
      rest.push(item);
      at.push(k);
    } else results[k] = row;
  }
  if (rest.length > 0) {
    const rows = await run(rest, at);
    rows.forEach((row, j) => {
      results[at[j]!] = row;
    });
  }
  return results;
}
