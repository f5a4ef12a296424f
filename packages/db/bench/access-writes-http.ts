import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The write target of #30 as a user meets it: a real `divan serve` on a loopback port, one
 * access-enabled database (`gated`) and one plain database (`plain`) on it, and `PUT /db/doc` over
 * keep-alive at c1 and c16, new documents and updates, in alternating rounds (gated, then plain).
 *
 * Both databases are written by the same non-admin user `writer`, with the same Basic
 * authentication and the same `_security` (`writer` a member by name); both bodies are the same
 * bytes, `_access: ["writer"]` included (in a plain database `_access` is an ordinary member, so
 * the plain write stores the same document without acting on it). Figures: requests per second
 * (wall time: other processes' turns count) and the server's CPU per request (the sum of its
 * threads' run time, `/proc/<pid>/task/<tid>/schedstat`, nanoseconds: the WAL checkpoint worker
 * and the hashing pool included), each case's cheapest round and the median of per-round ratios.
 */

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'divan.js');
const ADMIN = 'bench:bench';
const WRITER = 'writer';
const basic = (userinfo: string) => `Basic ${Buffer.from(userinfo).toString('base64')}`;

interface Answer {
  status: number;
  body: string;
}
type Request = (method: string, path: string, body?: string) => Promise<Answer>;

/** A keep-alive client of at most `sockets` connections. */
function client(port: number, auth: string, sockets: number): Request & { close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const request = (method: string, path: string, body?: string) =>
    new Promise<Answer>((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json', authorization: auth };
      if (body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return Object.assign(request, { close: () => agent.destroy() });
}

/** A loopback port nobody listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Nanoseconds of CPU the process's threads have run so far (threads that ended are not counted). */
function cpuNanos(pid: number): number {
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return sum;
}

async function must(answer: Promise<Answer>, status: number, what: string): Promise<Answer> {
  const got = await answer;
  if (got.status !== status) throw new Error(`access-writes http: ${what}: ${got.status} ${got.body}`);
  return got;
}

const DBS = ['gated', 'plain'] as const;
type Db = (typeof DBS)[number];

/** One round's figures: CPU µs per request and requests per second. */
interface Round {
  cpuUs: number;
  perSecond: number;
}

/** `count` requests from `next`, `concurrency` at a time, each answering 201. */
async function round(pid: number, request: Request, count: number, concurrency: number, next: () => [string, string]) {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left--;
      const [path, body] = next();
      await must(request('PUT', path, body), 201, `PUT ${path}`);
    }
  };
  const cpu = cpuNanos(pid);
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { cpuUs: (cpuNanos(pid) - cpu) / 1000 / count, perSecond: count / seconds };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/**
 * Runs the HTTP cases and prints a line each: `rounds` pairs of rounds of `perRound` requests.
 */
export async function serverWrites(rounds: number, perRound: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'divan-bench-access-writes-http-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    ['--no-node-snapshot', BIN, 'serve', '--port', String(port), '--data', join(dir, 'data'), '--admin', ADMIN],
    { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const admin = client(port, basic(ADMIN), 1);
  const clients: (Request & { close(): void })[] = [admin];
  try {
    let up = false;
    for (let i = 0; i < 600 && !up && child.exitCode === null; i++) {
      up = await admin('GET', '/').then(
        (r) => r.status === 200,
        () => false,
      );
      if (!up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!up || child.pid === undefined) throw new Error('access-writes http: the server did not start');
    const pid = child.pid;
    await must(
      admin(
        'PUT',
        `/_users/org.couchdb.user:${WRITER}`,
        JSON.stringify({ name: WRITER, password: 'secret', roles: [], type: 'user' }),
      ),
      201,
      'the writer',
    );
    const security = JSON.stringify({ members: { names: [WRITER] }, admins: { roles: ['_admin'] } });
    await must(admin('PUT', '/gated?access=true'), 201, 'create gated');
    await must(admin('PUT', '/plain'), 201, 'create plain');
    for (const db of DBS) await must(admin('PUT', `/${db}/_security`, security), 200, `${db} _security`);

    const body = (fields: Record<string, unknown>) => JSON.stringify({ ...fields, _access: [WRITER] });
    const made: Record<Db, number> = { gated: 0, plain: 0 };
    const newDoc = (db: Db) => (): [string, string] => {
      const k = made[db]++;
      return [`/${db}/n${k}`, body({ v: k })];
    };
    // Documents updated in turn: more than 16 so concurrent updates never name the same one.
    const UPDATED = 500;
    const revs: Record<Db, string[]> = { gated: [], plain: [] };
    const turns: Record<Db, number> = { gated: 0, plain: 0 };
    const writer1 = client(port, basic(`${WRITER}:secret`), 1);
    clients.push(writer1);
    for (const db of DBS) {
      for (let i = 0; i < UPDATED; i++) {
        const answer = await must(writer1('PUT', `/${db}/u${i}`, body({ v: 0 })), 201, `PUT /${db}/u${i}`);
        revs[db].push(JSON.parse(answer.body).rev);
      }
    }
    const update = (db: Db) => (): [string, string] => {
      const i = turns[db]++ % UPDATED;
      return [`/${db}/u${i}`, body({ _rev: revs[db][i], v: turns[db] })];
    };
    // An update's answer carries the rev the next update of that document names.
    const tracking =
      (request: Request): Request =>
      async (method, path, sent) => {
        const answer = await request(method, path, sent);
        const [, db, id] = path.split('/') as [string, Db, string];
        if (answer.status === 201 && id.startsWith('u')) revs[db][Number(id.slice(1))] = JSON.parse(answer.body).rev;
        return answer;
      };

    for (const concurrency of [1, 16]) {
      let raw = writer1;
      if (concurrency !== 1) {
        raw = client(port, basic(`${WRITER}:secret`), concurrency);
        clients.push(raw);
      }
      const request = tracking(raw);
      const cases = [
        ['new document', newDoc],
        ['update', update],
      ] as const;
      for (const [name, next] of cases) {
        const figures: Record<Db, Round[]> = { gated: [], plain: [] };
        // A first pair of rounds warms the JIT and both files' pages; it is not counted.
        for (let r = 0; r <= rounds; r++) {
          for (const db of DBS) {
            const got = await round(pid, request, perRound, concurrency, next(db));
            if (r > 0) figures[db].push(got);
          }
        }
        const cpu = (db: Db) => Math.min(...figures[db].map((f) => f.cpuUs));
        const rate = (db: Db) => median(figures[db].map((f) => f.perSecond));
        const cpuRatio = median(figures.gated.map((f, i) => f.cpuUs / figures.plain[i]!.cpuUs));
        const rateRatio = median(figures.gated.map((f, i) => f.perSecond / figures.plain[i]!.perSecond));
        console.log(
          `access-writes http: ${name}, PUT c${concurrency}: server CPU per request (cheapest round) ${cpu('gated').toFixed(0)} / ${cpu('plain').toFixed(0)} µs access-enabled / plain, median of per-round ratios ${cpuRatio.toFixed(2)}× (target ≤ 1.2×); req/s (median round) ${rate('gated').toFixed(0)} / ${rate('plain').toFixed(0)}, median of per-round ratios ${rateRatio.toFixed(2)}×`,
        );
      }
    }
  } finally {
    for (const request of clients) request.close();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}
