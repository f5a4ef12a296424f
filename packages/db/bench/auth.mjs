// The auth suite (issue #17's benchmark): a cookie-authenticated GET /db/doc at c16 against the
// same request with Basic auth of an admin (the cookie user's roles and password hash are looked
// up per request, the admin's verified password is cached), and 100 first logins at once (their
// PBKDF2 at 600,000 rounds runs off the event loop) while GET /_up is probed every 10 ms.

import { client, closedLoop, fmt, percentile } from './common.mjs';

const DB = 'bench_auth';
const LOGINS = 100;

export async function runAuth(server, opts) {
  const log = (line) => console.error(`${server.name}: ${line}`);
  const { request } = server;
  const must = async (method, path, body, ok) => {
    const r = await request(method, path, body === undefined ? undefined : JSON.stringify(body), {
      timeoutMs: 600_000,
    });
    if (!ok.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.body.slice(0, 200)}`);
    return r;
  };
  await must('PUT', `/${DB}`, undefined, [201, 412]);
  await must('PUT', `/${DB}/doc`, { a: 1 }, [201, 409]);
  const userDoc = (name) => ({
    _id: `org.couchdb.user:${name}`,
    name,
    password: `pw-${name}`,
    roles: [],
    type: 'user',
  });
  log(`creating ${LOGINS + 1} users (PBKDF2 on every password) ...`);
  const docs = [userDoc('reader'), ...Array.from({ length: LOGINS }, (_, i) => userDoc(`first${i}`))];
  await must('POST', '/_users/_bulk_docs', { docs }, [201]);
  await must('PUT', `/${DB}/_security`, { members: { names: ['reader'] } }, [200]);
  const login = await must('POST', '/_session', { name: 'reader', password: 'pw-reader' }, [200]);
  const cookie = String(login.headers['set-cookie']).split(';')[0];

  const loop = (req) =>
    closedLoop({
      request: req,
      next: () => ['GET', `/${DB}/doc`],
      seconds: opts.seconds,
      concurrency: 16,
      pid: server.pid,
    });
  const basicRun = await loop(request);
  const viaCookie = client(server.base, undefined, 16, { cookie });
  const cookieRun = await loop(viaCookie);
  viaCookie.close();

  log(`${LOGINS} first logins at once ...`);
  const probe = client(server.base, undefined, 1);
  const anonymous = client(server.base, undefined, LOGINS);
  const probes = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const t0 = process.hrtime.bigint();
      await probe('GET', '/_up');
      probes.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const t0 = process.hrtime.bigint();
  const logins = await Promise.all(
    Array.from({ length: LOGINS }, (_, i) =>
      anonymous('POST', '/_session', JSON.stringify({ name: `first${i}`, password: `pw-first${i}` }), {
        timeoutMs: 600_000,
      }),
    ),
  );
  const loginMs = Number(process.hrtime.bigint() - t0) / 1e6;
  done = true;
  await probing;
  probe.close();
  anonymous.close();
  if (!logins.every((r) => r.status === 200)) throw new Error('a first login failed');
  probes.sort((a, b) => a - b);
  return { basicRun, cookieRun, loginMs, probeMax: probes.at(-1), probeP99: percentile(probes, 0.99) };
}

export function reportAuth(results) {
  console.log('\n## auth: cookie vs Basic (GET /db/doc, c16) and 100 first logins at once');
  console.log(
    '| server | Basic admin req/s | cookie user req/s | cookie / Basic | 100 logins (s) | GET /_up max / p99 during them (ms) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [name, r] of Object.entries(results)) {
    const ratio = r.cookieRun.perSecond / r.basicRun.perSecond;
    console.log(
      `| ${name} | ${fmt(r.basicRun.perSecond)} | ${fmt(r.cookieRun.perSecond)} | ${fmt(ratio * 100)}% | ${fmt(r.loginMs / 1000, 1)} | ${fmt(r.probeMax, 1)} / ${fmt(r.probeP99, 1)} |`,
    );
  }
}
