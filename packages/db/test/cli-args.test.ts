import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { helpText, parseCli, parseServeArgs, parseSize, UsageError } from '../src/cli/args.js';

const CWD = '/srv/divan';
const serve = (argv: string[], env: Record<string, string | undefined> = {}) => parseServeArgs(argv, env, CWD);

function usage(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UsageError, String(err));
    assert.match(err.message, pattern);
    return true;
  });
}

describe('parseServeArgs', () => {
  test('defaults', () => {
    assert.deepEqual(serve([]), {
      port: 5984,
      host: '127.0.0.1',
      dataDir: resolve(CWD, 'data'),
      maxBodyBytes: 64 * 1024 * 1024,
      maxAttachmentBytes: 1024 ** 3,
      durability: 'normal',
      logLevel: 'info',
    });
  });

  test('flags, in both --flag value and --flag=value forms', () => {
    const options = serve([
      '--port',
      '6000',
      '--host=0.0.0.0',
      '--data',
      '/var/lib/divan',
      '--admin=root:s3:cret',
      '--max-body',
      '1gb',
      '--max-attachment-size=2mb',
      '--durability=full',
      '--log-level',
      'debug',
    ]);
    assert.deepEqual(options, {
      port: 6000,
      host: '0.0.0.0',
      dataDir: '/var/lib/divan',
      admin: { name: 'root', password: 's3:cret' },
      maxBodyBytes: 1024 ** 3,
      maxAttachmentBytes: 2 * 1024 * 1024,
      durability: 'full',
      logLevel: 'debug',
    });
  });

  test('relative data folders resolve against the working directory', () => {
    assert.equal(serve(['--data', 'db']).dataDir, '/srv/divan/db');
    assert.equal(serve([], { DIVAN_DATA: '../x' }).dataDir, '/srv/x');
  });

  test('environment variables', () => {
    const options = serve([], {
      DIVAN_PORT: '7000',
      DIVAN_HOST: '::1',
      DIVAN_DATA: '/data',
      DIVAN_ADMIN: 'ops:pw',
      DIVAN_MAX_BODY: '512kb',
      DIVAN_MAX_ATTACHMENT_SIZE: '10mb',
      DIVAN_DURABILITY: 'full',
      DIVAN_LOG_LEVEL: 'none',
    });
    assert.deepEqual(options, {
      port: 7000,
      host: '::1',
      dataDir: '/data',
      admin: { name: 'ops', password: 'pw' },
      maxBodyBytes: 512 * 1024,
      maxAttachmentBytes: 10 * 1024 * 1024,
      durability: 'full',
      logLevel: 'none',
    });
    assert.throws(() => serve(['--log-level', 'loud']), /--log-level must be one of debug, info, warn, error, none/);
    assert.equal(serve(['--storage', 'postgres://divan@db:5432/couch']).storage, 'postgres://divan@db:5432/couch');
    assert.equal(serve([], { DIVAN_STORAGE: 'postgresql://h/x' }).storage, 'postgresql://h/x');
    assert.equal(serve([]).storage, undefined);
    assert.throws(() => serve(['--storage', 'mysql://h/x']), /--storage must be a PostgreSQL URL/);
  });

  test('flags win over the environment; empty variables count as unset', () => {
    const env = { DIVAN_PORT: '7000', DIVAN_ADMIN: 'env:pw', DIVAN_HOST: '' };
    const options = serve(['--port', '8000', '--admin', 'flag:pw'], env);
    assert.equal(options.port, 8000);
    assert.deepEqual(options.admin, { name: 'flag', password: 'pw' });
    assert.equal(options.host, '127.0.0.1');
  });

  test('port 0 (any free port) is allowed', () => {
    assert.equal(serve(['--port', '0']).port, 0);
  });

  test('bad values', () => {
    usage(() => serve(['--port', 'abc']), /--port must be a port number.*'abc'/);
    usage(() => serve(['--port', '65536']), /--port/);
    usage(() => serve(['--port', '-1']), /--port/);
    usage(() => serve([], { DIVAN_PORT: '1.5' }), /DIVAN_PORT must be a port number/);
    usage(() => serve(['--durability', 'fast']), /--durability must be 'normal' or 'full', got 'fast'/);
    usage(() => serve(['--max-body', '12parsecs']), /--max-body must be a size/);
    usage(() => serve([], { DIVAN_MAX_BODY: '0' }), /DIVAN_MAX_BODY must be at least 1 byte/);
    usage(() => serve(['--admin', 'nopassword']), /--admin must be USER:PASS/);
    usage(() => serve(['--admin', ':pw']), /--admin must be USER:PASS/);
    usage(() => serve(['--admin', 'user:']), /--admin must be USER:PASS/);
    usage(() => serve(['--host=']), /--host must not be empty/);
  });

  test('unknown, repeated, valueless flags and stray arguments', () => {
    usage(() => serve(['--prot', '1']), /unknown option '--prot'/);
    usage(() => serve(['-p', '1']), /unknown option '-p'/);
    usage(() => serve(['--__proto__', '1']), /unknown option/);
    usage(() => serve(['extra']), /unexpected argument 'extra'/);
    usage(() => serve(['--port']), /option '--port' needs a value/);
    usage(() => serve(['--port', '--host', 'x']), /option '--port' needs a value/);
    usage(() => serve(['--port', '1', '--port', '2']), /given more than once/);
  });
});

describe('parseSize', () => {
  test('units', () => {
    assert.equal(parseSize('1048576'), 1048576);
    assert.equal(parseSize('100b'), 100);
    assert.equal(parseSize('64mb'), 64 * 1024 * 1024);
    assert.equal(parseSize('64MB'), 64 * 1024 * 1024);
    assert.equal(parseSize('64m'), 64 * 1024 * 1024);
    assert.equal(parseSize('2kib'), 2048);
    assert.equal(parseSize('1gb'), 1024 ** 3);
    assert.equal(parseSize('1.5gb'), 1.5 * 1024 ** 3);
    assert.equal(parseSize('10 mb'), 10 * 1024 * 1024);
  });

  test('rejects garbage', () => {
    for (const bad of ['', 'mb', '-1mb', '1tb', '1e6', '0x10', '1.mb']) usage(() => parseSize(bad), /must be a size/);
  });
});

describe('parseCli', () => {
  test('commands', () => {
    assert.deepEqual(parseCli(['--help'], {}), { kind: 'help' });
    assert.deepEqual(parseCli(['-h'], {}), { kind: 'help' });
    assert.deepEqual(parseCli(['help', 'serve'], {}), { kind: 'help', topic: 'serve' });
    assert.deepEqual(parseCli(['serve', '--help'], {}), { kind: 'help', topic: 'serve' });
    assert.deepEqual(parseCli(['--version'], {}), { kind: 'version' });
    const parsed = parseCli(['serve', '--port', '1234'], {}, CWD);
    assert.equal(parsed.kind, 'serve');
    assert.equal(parsed.kind === 'serve' && parsed.options.port, 1234);
  });

  test('unknown or missing commands and options', () => {
    usage(() => parseCli([], {}), /missing command/);
    usage(() => parseCli(['start'], {}), /unknown command 'start'/);
    usage(() => parseCli(['--port', '1'], {}), /unknown option '--port'/);
    usage(() => parseCli(['--version', 'x'], {}), /unexpected argument 'x'/);
  });

  test('help mentions every option and its variable', () => {
    const text = helpText();
    for (const word of [
      'serve',
      '--port',
      '--host',
      '--data',
      '--admin',
      '--max-body',
      '--durability',
      'DIVAN_PORT',
      'DIVAN_HOST',
      'DIVAN_DATA',
      'DIVAN_ADMIN',
      'DIVAN_MAX_BODY',
      'DIVAN_DURABILITY',
      '--version',
    ]) {
      assert.ok(text.includes(word), word);
    }
  });
});

describe('divan serve: CORS and session flags', () => {
  test('--cors-origins turns CORS on; the other flags refine it', () => {
    assert.equal(parseServeArgs([], {}, '/w').cors, undefined);
    assert.deepEqual(parseServeArgs(['--cors-origins', '*'], {}, '/w').cors, { origins: '*' });
    assert.deepEqual(
      parseServeArgs(
        [
          '--cors-origins=https://a.example, https://b.example',
          '--cors-credentials',
          'true',
          '--cors-methods',
          'get,put',
        ],
        {},
        '/w',
      ).cors,
      { origins: ['https://a.example', 'https://b.example'], credentials: true, methods: ['GET', 'PUT'] },
    );
    assert.deepEqual(parseServeArgs([], { DIVAN_CORS_ORIGINS: 'https://c.example' }, '/w').cors, {
      origins: ['https://c.example'],
    });
    assert.throws(() => parseServeArgs(['--cors-credentials', 'true'], {}, '/w'), UsageError);
    assert.throws(() => parseServeArgs(['--cors-origins', '*', '--cors-credentials', 'yes'], {}, '/w'), UsageError);
  });

  test('--jwt names a settings file, resolved against the working directory', () => {
    assert.equal(parseServeArgs(['--jwt', 'keys.json'], {}, '/w').jwtFile, resolve('/w', 'keys.json'));
  });

  test('--tls-cert and --tls-key go together; --http-port adds plain HTTP and needs them', () => {
    assert.deepEqual(parseServeArgs(['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], {}, '/w').tls, {
      certFile: resolve('/w', 'c.pem'),
      keyFile: resolve('/w', 'k.pem'),
    });
    const both = parseServeArgs([], { DIVAN_TLS_CERT: 'c', DIVAN_TLS_KEY: 'k', DIVAN_HTTP_PORT: '5986' }, '/w');
    assert.equal(both.tls?.httpPort, 5986);
    assert.throws(() => parseServeArgs(['--tls-cert', 'c.pem'], {}, '/w'), /--tls-cert needs --tls-key too/);
    assert.throws(() => parseServeArgs(['--tls-key', 'k.pem'], {}, '/w'), /--tls-key needs --tls-cert too/);
    assert.throws(
      () => parseServeArgs(['--http-port', '5986'], {}, '/w'),
      /--http-port needs --tls-cert and --tls-key/,
    );
    assert.equal(parseServeArgs([], {}, '/w').tls, undefined);
  });

  test('--session-timeout takes seconds', () => {
    assert.equal(parseServeArgs(['--session-timeout', '3600'], {}, '/w').sessionTimeout, 3600);
    assert.throws(() => parseServeArgs(['--session-timeout', '0'], {}, '/w'), UsageError);
  });

  test('--replicator-* flags set the scheduler; a value that is not an integer is refused', () => {
    const options = parseServeArgs(
      ['--replicator-max-jobs', '0', '--replicator-interval=500', '--replicator-max-churn', '3'],
      { DIVAN_REPLICATOR_CRASH_BACKOFF: '1000', DIVAN_REPLICATOR_STALL_TIMEOUT: '20000' },
      '/w',
    );
    assert.deepEqual(options.replicator, {
      maxJobs: 0,
      intervalMs: 500,
      maxChurn: 3,
      crashBackoffMs: 1000,
      stallTimeoutMs: 20000,
    });
    assert.equal(parseServeArgs([], {}, '/w').replicator, undefined);
    assert.throws(() => parseServeArgs(['--replicator-max-churn', '0'], {}, '/w'), /at least 1/);
    assert.throws(() => parseServeArgs(['--replicator-interval', 'soon'], {}, '/w'), UsageError);
  });
});
