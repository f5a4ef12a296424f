/**
 * Command-line parsing for `divan`, kept pure (argv and env in, options out) so it is testable.
 * Every mistake is a `UsageError`, which the CLI turns into a message and exit code 2.
 */
import { resolve } from 'node:path';
import { LOG_LEVELS, type LogLevel } from '../server/log.js';
import { parseOrigins, type CorsOptions } from '../http/cors.js';
import type { SchedulerSettings } from '../replication/scheduler-settings.js';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type Durability = 'normal' | 'full';

export interface ServeOptions {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  admin?: { name: string; password: string };
  maxBodyBytes: number;
  maxAttachmentBytes: number;
  durability: Durability;
  logLevel: LogLevel;
  /** A PostgreSQL URL: the databases live there (shared by every node) instead of in `dataDir`. */
  storage?: string;
  /** CORS, on when origins are given (CouchDB's `enable_cors` and `[cors]`). */
  cors?: CorsOptions;
  /** Session cookie lifetime in seconds. */
  sessionTimeout?: number;
  /** A JSON file of JWT settings (`{"keys": {"hmac:_default": "<base64>"}, "rolesClaim", "requiredClaims"}`). */
  jwtFile?: string;
  /** HTTPS with this certificate and key (PEM files, absolute); with `httpPort`, plain HTTP too. */
  tls?: { certFile: string; keyFile: string; httpPort?: number };
  /** The replication scheduler's `[replicator]` settings given at start. */
  replicator?: Partial<SchedulerSettings>;
}

export type CliCommand =
  | { kind: 'help'; topic?: 'serve' }
  | { kind: 'version' }
  | { kind: 'serve'; options: ServeOptions };

export type Env = Record<string, string | undefined>;

export const DEFAULT_PORT = 5984;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_DATA_DIR = './data';
export const DEFAULT_MAX_BODY = '64mb';
export const DEFAULT_MAX_ATTACHMENT = '1gb';

interface FlagSpec {
  env: string;
  /** Placeholder in messages and help. */
  value: string;
}

const SERVE_FLAGS: Record<string, FlagSpec> = {
  port: { env: 'DIVAN_PORT', value: 'PORT' },
  host: { env: 'DIVAN_HOST', value: 'HOST' },
  data: { env: 'DIVAN_DATA', value: 'DIR' },
  admin: { env: 'DIVAN_ADMIN', value: 'USER:PASS' },
  'max-body': { env: 'DIVAN_MAX_BODY', value: 'SIZE' },
  'max-attachment-size': { env: 'DIVAN_MAX_ATTACHMENT_SIZE', value: 'SIZE' },
  durability: { env: 'DIVAN_DURABILITY', value: 'normal|full' },
  'log-level': { env: 'DIVAN_LOG_LEVEL', value: LOG_LEVELS.join('|') },
  storage: { env: 'DIVAN_STORAGE', value: 'postgres://...' },
  'cors-origins': { env: 'DIVAN_CORS_ORIGINS', value: "'*'|ORIGIN,..." },
  'cors-credentials': { env: 'DIVAN_CORS_CREDENTIALS', value: 'true|false' },
  'cors-methods': { env: 'DIVAN_CORS_METHODS', value: 'METHOD,...' },
  'cors-headers': { env: 'DIVAN_CORS_HEADERS', value: 'HEADER,...' },
  'session-timeout': { env: 'DIVAN_SESSION_TIMEOUT', value: 'SECONDS' },
  jwt: { env: 'DIVAN_JWT', value: 'FILE' },
  'tls-cert': { env: 'DIVAN_TLS_CERT', value: 'FILE' },
  'tls-key': { env: 'DIVAN_TLS_KEY', value: 'FILE' },
  'http-port': { env: 'DIVAN_HTTP_PORT', value: 'PORT' },
  'replicator-max-jobs': { env: 'DIVAN_REPLICATOR_MAX_JOBS', value: 'N' },
  'replicator-interval': { env: 'DIVAN_REPLICATOR_INTERVAL', value: 'MS' },
  'replicator-max-churn': { env: 'DIVAN_REPLICATOR_MAX_CHURN', value: 'N' },
  'replicator-crash-backoff': { env: 'DIVAN_REPLICATOR_CRASH_BACKOFF', value: 'MS' },
  'replicator-stall-timeout': { env: 'DIVAN_REPLICATOR_STALL_TIMEOUT', value: 'MS' },
};

/** The `--replicator-*` flags: each a `[replicator]` setting (replication/scheduler-settings.ts). */
const REPLICATOR_FLAGS: [string, keyof SchedulerSettings, number][] = [
  ['replicator-max-jobs', 'maxJobs', 0],
  ['replicator-interval', 'intervalMs', 1],
  ['replicator-max-churn', 'maxChurn', 1],
  ['replicator-crash-backoff', 'crashBackoffMs', 1],
  ['replicator-stall-timeout', 'stallTimeoutMs', 1],
];

/** The whole command line (without `node` and the script). */
export function parseCli(argv: readonly string[], env: Env, cwd: string = process.cwd()): CliCommand {
  const [first, ...rest] = argv;
  if (first === undefined) throw new UsageError('missing command');
  if (first === '--help' || first === '-h' || first === 'help') {
    if (rest.length === 0) return { kind: 'help' };
    if (rest.length === 1 && rest[0] === 'serve') return { kind: 'help', topic: 'serve' };
    throw new UsageError(`unknown help topic '${rest.join(' ')}'`);
  }
  if (first === '--version' || first === '-v') {
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    return { kind: 'version' };
  }
  if (first === 'serve') {
    if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', topic: 'serve' };
    if (rest.includes('--version') || rest.includes('-v')) return { kind: 'version' };
    return { kind: 'serve', options: parseServeArgs(rest, env, cwd) };
  }
  if (first.startsWith('-')) throw new UsageError(`unknown option '${first}'`);
  throw new UsageError(`unknown command '${first}'`);
}

/** The arguments after `serve`; flags win over `DIVAN_*` environment variables. */
export function parseServeArgs(argv: readonly string[], env: Env, cwd: string = process.cwd()): ServeOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      throw new UsageError(arg.startsWith('-') ? `unknown option '${arg}'` : `unexpected argument '${arg}'`);
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const spec = SERVE_FLAGS[name];
    if (spec === undefined || !Object.hasOwn(SERVE_FLAGS, name)) throw new UsageError(`unknown option '--${name}'`);
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      // A following flag is not a value (`--port --host x`); values may still start with '-'
      // when written as `--flag=-value`.
      if (next === undefined || next.startsWith('--'))
        throw new UsageError(`option '--${name}' needs a value (${spec.value})`);
      value = next;
      i++;
    }
    if (flags.has(name)) throw new UsageError(`option '--${name}' given more than once`);
    flags.set(name, value);
  }

  // Empty environment variables count as unset; empty flags are an error.
  const pick = (name: string): { value: string; source: string } | undefined => {
    const flag = flags.get(name);
    if (flag !== undefined) return { value: flag, source: `--${name}` };
    const envName = SERVE_FLAGS[name]!.env;
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: envName };
    return undefined;
  };

  const port = pick('port');
  const host = pick('host');
  const data = pick('data');
  const admin = pick('admin');
  const maxBody = pick('max-body');
  const maxAttachment = pick('max-attachment-size');
  const durability = pick('durability');
  const logLevel = pick('log-level');
  const storage = pick('storage');

  const options: ServeOptions = {
    port: port === undefined ? DEFAULT_PORT : parsePort(port.value, port.source),
    host: host === undefined ? DEFAULT_HOST : nonEmpty(host.value, host.source),
    dataDir: resolve(cwd, data === undefined ? DEFAULT_DATA_DIR : nonEmpty(data.value, data.source)),
    maxBodyBytes: parseSize(maxBody === undefined ? DEFAULT_MAX_BODY : maxBody.value, maxBody?.source ?? '--max-body'),
    maxAttachmentBytes: parseSize(
      maxAttachment === undefined ? DEFAULT_MAX_ATTACHMENT : maxAttachment.value,
      maxAttachment?.source ?? '--max-attachment-size',
    ),
    durability: durability === undefined ? 'normal' : parseDurability(durability.value, durability.source),
    logLevel: logLevel === undefined ? 'info' : parseLogLevel(logLevel.value, logLevel.source),
  };
  if (admin !== undefined) options.admin = parseAdmin(admin.value, admin.source);
  if (storage !== undefined) options.storage = parseStorage(storage.value, storage.source);
  const cors = parseCors(pick);
  if (cors !== undefined) options.cors = cors;
  const timeout = pick('session-timeout');
  if (timeout !== undefined) {
    if (!/^\d+$/.test(timeout.value) || Number(timeout.value) < 1) {
      throw new UsageError(`${timeout.source} must be a number of seconds (1 or more), got '${timeout.value}'`);
    }
    options.sessionTimeout = Number(timeout.value);
  }
  const jwt = pick('jwt');
  if (jwt !== undefined) options.jwtFile = resolve(cwd, nonEmpty(jwt.value, jwt.source));
  const tls = parseTls(pick, cwd);
  if (tls !== undefined) options.tls = tls;
  const replicator: Partial<SchedulerSettings> = {};
  for (const [flag, key, least] of REPLICATOR_FLAGS) {
    const given = pick(flag);
    if (given === undefined) continue;
    if (!/^\d+$/.test(given.value) || Number(given.value) < least) {
      throw new UsageError(`${given.source} must be an integer of at least ${least}, got '${given.value}'`);
    }
    replicator[key] = Number(given.value);
  }
  if (Object.keys(replicator).length > 0) options.replicator = replicator;
  return options;
}

/** `--tls-cert` and `--tls-key` go together; `--http-port` adds plain HTTP beside HTTPS. */
function parseTls(
  pick: (name: string) => { value: string; source: string } | undefined,
  cwd: string,
): ServeOptions['tls'] {
  const cert = pick('tls-cert');
  const key = pick('tls-key');
  const httpPort = pick('http-port');
  if (cert === undefined && key === undefined) {
    if (httpPort !== undefined)
      throw new UsageError(`${httpPort.source} needs --tls-cert and --tls-key (it adds plain HTTP beside HTTPS)`);
    return undefined;
  }
  if (cert === undefined) throw new UsageError(`${key!.source} needs --tls-cert too`);
  if (key === undefined) throw new UsageError(`${cert.source} needs --tls-key too`);
  return {
    certFile: resolve(cwd, nonEmpty(cert.value, cert.source)),
    keyFile: resolve(cwd, nonEmpty(key.value, key.source)),
    ...(httpPort === undefined ? {} : { httpPort: parsePort(httpPort.value, httpPort.source) }),
  };
}

/** The `--cors-*` flags: CORS is on once origins are given; the others refine it. */
function parseCors(pick: (name: string) => { value: string; source: string } | undefined): CorsOptions | undefined {
  const origins = pick('cors-origins');
  const credentials = pick('cors-credentials');
  const methods = pick('cors-methods');
  const headers = pick('cors-headers');
  if (origins === undefined) {
    const stray = credentials ?? methods ?? headers;
    if (stray !== undefined) throw new UsageError(`${stray.source} needs --cors-origins (CORS is off without it)`);
    return undefined;
  }
  const list = (text: string) =>
    text
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  const cors: CorsOptions = { origins: parseOrigins(nonEmpty(origins.value, origins.source)) };
  if (credentials !== undefined) {
    if (credentials.value !== 'true' && credentials.value !== 'false') {
      throw new UsageError(`${credentials.source} must be 'true' or 'false', got '${credentials.value}'`);
    }
    cors.credentials = credentials.value === 'true';
  }
  if (methods !== undefined) cors.methods = list(methods.value).map((m) => m.toUpperCase());
  if (headers !== undefined) cors.headers = list(headers.value);
  return cors;
}

function nonEmpty(value: string, source: string): string {
  if (value === '') throw new UsageError(`${source} must not be empty`);
  return value;
}

export function parsePort(value: string, source = '--port'): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${source} must be a port number (0-65535), got '${value}'`);
  const port = Number(value);
  if (port > 65535) throw new UsageError(`${source} must be a port number (0-65535), got '${value}'`);
  return port;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `1048576`, `512kb`, `64mb`, `1.5gb` (binary units, case-insensitive) → bytes. */
export function parseSize(value: string, source = '--max-body'): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const unit = match?.[2]?.toLowerCase();
  if (match === null || unit === undefined || !Object.hasOwn(UNITS, unit)) {
    throw new UsageError(`${source} must be a size such as 1048576, 512kb, 64mb or 1gb, got '${value}'`);
  }
  const bytes = Math.floor(Number(match[1]) * UNITS[unit]!);
  if (bytes < 1 || !Number.isSafeInteger(bytes)) {
    throw new UsageError(`${source} must be at least 1 byte and at most ${Number.MAX_SAFE_INTEGER}, got '${value}'`);
  }
  return bytes;
}

function parseDurability(value: string, source: string): Durability {
  if (value === 'normal' || value === 'full') return value;
  throw new UsageError(`${source} must be 'normal' or 'full', got '${value}'`);
}

function parseStorage(value: string, source: string): string {
  if (/^postgres(ql)?:\/\//.test(value)) return value;
  throw new UsageError(`${source} must be a PostgreSQL URL (postgres://user@host:port/database), got '${value}'`);
}

function parseLogLevel(value: string, source: string): LogLevel {
  if ((LOG_LEVELS as readonly string[]).includes(value)) return value as LogLevel;
  throw new UsageError(`${source} must be one of ${LOG_LEVELS.join(', ')}, got '${value}'`);
}

function parseAdmin(value: string, source: string): { name: string; password: string } {
  // Split at the first ':' — names cannot contain one (Basic auth could not send it), passwords can.
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) {
    throw new UsageError(`${source} must be USER:PASS with a non-empty user and password`);
  }
  return { name: value.slice(0, colon), password: value.slice(colon + 1) };
}

export function helpText(topic?: 'serve'): string {
  const serve = [
    'Usage: divan serve [options]',
    '',
    'Starts the CouchDB-compatible server. Each option can also come from the environment',
    'variable shown; options on the command line win.',
    '',
    `  --port PORT             port to listen on (0 = any free port)  [DIVAN_PORT, default ${DEFAULT_PORT}]`,
    `  --host HOST             address to bind                        [DIVAN_HOST, default ${DEFAULT_HOST}]`,
    `  --data DIR              data folder                            [DIVAN_DATA, default ${DEFAULT_DATA_DIR}]`,
    '  --admin USER:PASS       server admin to (re)store, hashed      [DIVAN_ADMIN]',
    `  --max-body SIZE         largest request body, e.g. 64mb, 1gb   [DIVAN_MAX_BODY, default ${DEFAULT_MAX_BODY}]`,
    `  --max-attachment-size SIZE  largest attachment (413 past it) [DIVAN_MAX_ATTACHMENT_SIZE, default ${DEFAULT_MAX_ATTACHMENT}]`,
    '  --durability MODE       normal, or full (fsync every commit)   [DIVAN_DURABILITY, default normal]',
    '  --log-level LEVEL       debug, info, warn, error or none       [DIVAN_LOG_LEVEL, default info]',
    '  --storage URL           keep the databases in PostgreSQL       [DIVAN_STORAGE, default: SQLite in --data]',
    '                          (postgres://user@host:port/db[?schema=divan]; several nodes may share it)',
    '                          (info: one line per request; debug: also errors with their stack)',
    "  --cors-origins LIST     enable CORS for these origins, or '*'  [DIVAN_CORS_ORIGINS, default: CORS off]",
    '  --cors-credentials BOOL allow cookies/auth from those origins  [DIVAN_CORS_CREDENTIALS, default false]',
    "  --cors-methods LIST     methods allowed by preflights          [DIVAN_CORS_METHODS, default CouchDB's]",
    '  --cors-headers LIST     request headers allowed beyond the defaults  [DIVAN_CORS_HEADERS]',
    '  --session-timeout SECS  AuthSession cookie lifetime            [DIVAN_SESSION_TIMEOUT, default 600]',
    '  --jwt FILE              accept Bearer tokens signed by these keys [DIVAN_JWT]',
    '                          ({"keys":{"hmac:_default":"<base64>","rsa:<kid>":"<PEM>"},',
    '                          "rolesClaim":"_couchdb.roles","requiredClaims":["exp"]})',
    '  --tls-cert FILE         serve HTTPS on --port with this PEM certificate (chain) [DIVAN_TLS_CERT]',
    '  --tls-key FILE          and this PEM private key                [DIVAN_TLS_KEY]',
    '  --http-port PORT        with TLS, serve plain HTTP on this port too [DIVAN_HTTP_PORT]',
    '  --replicator-max-jobs N replication jobs running at once      [DIVAN_REPLICATOR_MAX_JOBS, default 500]',
    '  --replicator-interval MS  time between reschedules            [DIVAN_REPLICATOR_INTERVAL, default 60000]',
    '  --replicator-max-churn N  jobs rotated per reschedule         [DIVAN_REPLICATOR_MAX_CHURN, default 20]',
    "  --replicator-crash-backoff MS  base of a crashing job's backoff [DIVAN_REPLICATOR_CRASH_BACKOFF, default 30000]",
    '  --replicator-stall-timeout MS  no progress this long: restarted [DIVAN_REPLICATOR_STALL_TIMEOUT, default 90000]',
    '',
    'Without --admin, a first start creates the admin "admin" with a random password, prints it',
    'once and keeps only its hash in the data folder.',
  ];
  if (topic === 'serve') return `${serve.join('\n')}\n`;
  return `${[
    'Usage: divan <command> [options]',
    '',
    'Commands:',
    '  serve                   run the server (see: divan serve --help)',
    '',
    'Options:',
    '  -h, --help              show this help',
    '  -v, --version           show the version',
    '',
    ...serve,
  ].join('\n')}\n`;
}
