/**
 * The server log. Lines carry their level as a `[level]` prefix (`[debug]`, `[info]`, `[warn]`,
 * `[error]`); a log sink made here drops the lines below its level and adds the time.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'none'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, none: 4 };

/** A line's level from its prefix; lines without one are `info`. */
function levelOf(line: string): LogLevel {
  const match = /^\[(debug|info|warn|error)\]/.exec(line);
  return (match?.[1] as LogLevel | undefined) ?? 'info';
}

/** A log function writing the lines at `level` or above, each with an ISO time in front. */
export function levelledLog(level: LogLevel, write: (line: string) => void): (line: string) => void {
  const min = RANK[level];
  if (min >= RANK.none) return () => {};
  return (line) => {
    if (RANK[levelOf(line)] >= min) write(`${new Date().toISOString()} ${line}`);
  };
}
