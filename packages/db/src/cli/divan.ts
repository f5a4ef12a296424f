/**
 * The `divan` command: parses the command line, starts the server, prints where it listens (and
 * a freshly created admin password, once), and shuts down gracefully on SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMINS_FILE_NAME } from '../auth/admins.js';
import type { JwtOptions } from '../auth/jwt.js';
import { batchedLines, levelledLog } from '../server/log.js';
import { startServer, type TlsOptions } from '../start-server.js';
import { type Env, helpText, parseCli, type ServeOptions, UsageError } from './args.js';
import { compactWhenIdle } from './idle-compaction.js';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** The version of @divan/db, from its package.json (found from both src/ and dist/src/). */
export function version(): string {
  for (const relative of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === '@divan/db' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // try the next location
    }
  }
  return 'unknown';
}

/**
 * Runs one command line. Resolves with the exit code for commands that finish (help, version,
 * usage errors: 2, start failures: 1), or `null` once the server is up — the process then lives
 * until a signal closes the server.
 */
export async function main(argv: readonly string[], env: Env, io: CliIo = processIo): Promise<number | null> {
  let command;
  try {
    command = parseCli(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.stderr(`divan: ${err.message}\nRun 'divan --help' for usage.\n`);
    return 2;
  }
  if (command.kind === 'help') {
    io.stdout(helpText(command.topic));
    return 0;
  }
  if (command.kind === 'version') {
    io.stdout(`${version()}\n`);
    return 0;
  }

  const { options } = command;
  let server;
  try {
    const jwt = options.jwtFile === undefined ? undefined : readJwtFile(options.jwtFile);
    const tls = options.tls === undefined ? undefined : readTls(options.tls);
    server = await startServer({
      ...(jwt === undefined ? {} : { jwt }),
      ...(tls === undefined ? {} : { tls }),
      port: options.port,
      host: options.host,
      dataDir: options.dataDir,
      ...(options.admin === undefined ? {} : { admin: options.admin }),
      maxBodyBytes: options.maxBodyBytes,
      maxAttachmentBytes: options.maxAttachmentBytes,
      durability: options.durability,
      ...(options.storage === undefined ? {} : { storage: options.storage }),
      ...(options.cors === undefined ? {} : { cors: options.cors }),
      ...(options.sessionTimeout === undefined ? {} : { sessionTimeout: options.sessionTimeout }),
      ...(options.replicator === undefined ? {} : { replicator: options.replicator }),
      log: levelledLog(options.logLevel, batchedLines(io.stdout)),
    });
  } catch (err) {
    io.stderr(`divan: cannot start the server: ${describe(err)}\n`);
    return 1;
  }

  const where =
    options.storage === undefined ? `data: ${options.dataDir}` : `storage: ${withoutPassword(options.storage)}`;
  const alsoHttp = server.httpUrl === undefined ? '' : ` and ${server.httpUrl}`;
  io.stdout(`Divan ${version()} listening on ${server.url}${alsoHttp} (${where})\n`);
  if (server.createdAdmin !== undefined) {
    const { name, password } = server.createdAdmin;
    io.stdout(
      `${[
        '',
        'No server admin existed, so one was created:',
        `  name:     ${name}`,
        `  password: ${password}`,
        `This password is shown only this once; only its hash is stored, in ${options.storage === undefined ? join(options.dataDir, ADMINS_FILE_NAME) : 'the storage'}.`,
        'Use --admin USER:PASS (or DIVAN_ADMIN) to set an admin of your own choosing.',
        '',
      ].join('\n')}\n`,
    );
  }

  compactWhenIdle();
  const running = server;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals | 'disconnect'): void => {
    if (stopping) {
      io.stderr(`divan: ${signal} again, exiting without waiting\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    stopping = true;
    io.stderr(
      signal === 'disconnect'
        ? 'divan: the launcher process ended, shutting down\n'
        : `divan: ${signal} received, shutting down (send it again to exit at once)\n`,
    );
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        io.stderr(`divan: error while shutting down: ${describe(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // Run by bin/divan.js's launcher (node without --no-node-snapshot): the launcher is the process
  // a shell or supervisor holds, so this one ends with it, even when it was killed with -9.
  if (env.DIVAN_LAUNCHED_BY !== undefined && process.channel !== undefined) {
    process.once('disconnect', () => onSignal('disconnect'));
  }
  return null;
}

/** Entry point of bin/divan.js. */
export async function run(): Promise<void> {
  // The launcher's IPC channel only tells this process when the launcher is gone; it must not
  // keep a `--help` or a failed start alive.
  process.channel?.unref();
  try {
    const code = await main(process.argv.slice(2), process.env);
    if (code !== null) process.exitCode = code;
  } catch (err) {
    process.stderr.write(`divan: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  }
}

/** A storage URL fit to print. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

/** The `--tls-cert` and `--tls-key` files, read now so a missing one is named. */
function readTls(tls: NonNullable<ServeOptions['tls']>): TlsOptions {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      const why =
        code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'it is not readable' : describe(err);
      throw new Error(`${flag} ${file}: cannot read it: ${why}`);
    }
  };
  return {
    cert: read(tls.certFile, '--tls-cert'),
    key: read(tls.keyFile, '--tls-key'),
    ...(tls.httpPort === undefined ? {} : { httpPort: tls.httpPort }),
  };
}

/** The `--jwt` file: CouchDB's `[jwt_keys]` as `keys`, plus the roles claim and required claims. */
function readJwtFile(file: string): JwtOptions {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EACCES' ? 'it is not readable' : describe(err);
    throw new Error(`--jwt ${file}: cannot read the JWT keys file: ${why}`);
  }
  let value: Partial<JwtOptions> | null;
  try {
    value = JSON.parse(text) as Partial<JwtOptions> | null;
  } catch (err) {
    throw new Error(`--jwt ${file}: the JWT keys file is not JSON: ${describe(err)}`);
  }
  const keys = value?.keys;
  if (typeof keys !== 'object' || keys === null || !Object.values(keys).every((k) => typeof k === 'string')) {
    throw new Error(`--jwt ${file}: "keys" must be an object of key strings ("hmac:_default": "<base64>", ...)`);
  }
  return value as JwtOptions;
}
