/**
 * The server log. Lines carry their level as a `[level]` prefix (`[debug]`, `[info]`, `[warn]`,
 * `[error]`); a log sink made here drops the lines below its level and adds the time.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'none'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, none: 4 };

/** A line's level from its prefix; lines without one are `info`. */
function levelOf(line: string): LogLevel {
  if (line.charCodeAt(0) !== 91) return 'info'; // '[': most lines are `[info]` requests
  if (line.startsWith('[info]')) return 'info';
  const match = /^\[(debug|warn|error)\]/.exec(line);
  return (match?.[1] as LogLevel | undefined) ?? 'info';
}

/** A log function writing the lines at `level` or above, each with an ISO time in front. */
export function levelledLog(level: LogLevel, write: (line: string) => void): (line: string) => void {
  const min = RANK[level];
  if (min >= RANK.none) return () => {};
  // The time of the last line: a busy server logs several lines a millisecond. The date and
  // time to the second are formatted once a second, the milliseconds appended to them.
  let lastMs = Number.NaN;
  let lastTime = '';
  let lastSecond = Number.NaN;
  let secondText = '';
  return (line) => {
    if (RANK[levelOf(line)] < min) return;
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      const second = Math.floor(ms / 1000);
      if (second !== lastSecond) {
        lastSecond = second;
        // `2026-11-30T08:44:22.` of `2026-11-30T08:44:22.000Z`.
        secondText = new Date(second * 1000).toISOString().slice(0, 20);
      }
      lastTime = `${secondText}${String(ms - second * 1000).padStart(3, '0')}Z`;
    }
    write(`${lastTime} ${line}`);
  };
}

/** Lines logged within this long of the last write wait to be written with the next ones. */
const FLUSH_EVERY_MS = 10;
/** How long a waiting line waits at most, when no other line comes to write it. */
const IDLE_FLUSH_MS = 100;
/** Lines that are written at once, however recent the last write. */
const FLUSH_LINES = 256;

/**
 * Lines written together: a line is written at once, with the ones waiting, when the last write
 * is FLUSH_EVERY_MS old (so a lone request's line goes out at once); one that comes sooner waits
 * for the next line past that, or IDLE_FLUSH_MS at most. All are written when the process exits.
 * A write per line, or per turn of the event loop, cost more than formatting the lines: a server
 * answering one client at a time logs one request a turn. Waiting lines are written by the lines
 * that follow, not by a timer of their own, which would wake an idle process up again.
 */
export function batchedLines(write: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastWrite = Number.NEGATIVE_INFINITY;
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    lastWrite = performance.now();
    if (pending.length === 0) return;
    const text = pending.join('');
    pending = [];
    write(text);
  };
  process.once('exit', flush);
  return (line) => {
    pending.push(line.endsWith('\n') ? line : `${line}\n`);
    if (pending.length >= FLUSH_LINES || performance.now() - lastWrite >= FLUSH_EVERY_MS) flush();
    else timer ??= setTimeout(flush, IDLE_FLUSH_MS).unref();
  };
}
