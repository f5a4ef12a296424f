/**
 * The wait of a longpoll or continuous feed (`_changes`, `_db_updates`): until `subscribe`'s
 * callback says the awaited event came, the timeout passes, or the client leaves.
 */
import type { RequestContext } from './context.js';

/** `subscribe(done)` calls `done` when the awaited event comes, and returns its unsubscribe. */
export function waitForFeed(
  ctx: RequestContext,
  subscribe: (done: () => void) => () => void,
  timeout: number,
): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      unsubscribe?.();
      ctx.res.off('close', finish);
      resolve();
    };
    unsubscribe = subscribe(finish);
    if (finished) unsubscribe();
    // setTimeout would fire at once for Infinity (it overflows to 1 ms).
    if (Number.isFinite(timeout)) timer = setTimeout(finish, timeout);
    ctx.res.on('close', finish);
    // A client that left while the rows before were read has closed already: its 'close' has
    // passed, and waiting would keep the feed (and its heartbeat timer) for ever.
    if (ctx.res.destroyed) finish();
  });
}
