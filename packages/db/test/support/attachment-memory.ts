/**
 * Attachment bodies stream: a 256 MiB upload and its download (generated and checked on the
 * fly, never held by the test either) grow the server process's resident memory by at most
 * 32 MiB. The server is the real `divan serve` in a child process, so its RSS is its own.
 * 256 MiB is 1,024 storage chunks and eight times the allowed growth: holding the attachment,
 * or any fixed fraction of it, would show; the 1 GB shows nothing more and takes four
 * times as long on this machine. Run on each engine (attachments-memory*.test.ts).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { startChildServer } from './child-server.js';
import { raw } from './raw-http.js';

/** DIVAN_TEST_ATTACHMENT_MIB=1024 runs the 1 GB. */
export const SIZE = Number(process.env.DIVAN_TEST_ATTACHMENT_MIB ?? 256) * 1024 * 1024;
const CHUNK = 64 * 1024;
const MAX_GROWTH = 32 * 1024 * 1024;
const AUTH = `Basic ${Buffer.from('admin:secret').toString('base64')}`;

/** Incompressible-looking bytes, the same for a given chunk number (xorshift), made as they are sent. */
function chunkOf(n: number): Buffer {
  const out = Buffer.allocUnsafe(CHUNK);
  let x = (n * 2654435761) ^ 0x9e3779b9 || 1;
  for (let i = 0; i < CHUNK; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out.writeInt32LE(x | 0, i);
  }
  return out;
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** The highest RSS of `pid` while `work` runs, sampled every 20 ms. */
async function peakDuring(pid: number, work: () => Promise<void>): Promise<number> {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssOf(pid));
}

/** Measures one upload and download on a server started with `args`; reports through `diagnostic`. */
export async function attachmentStreamingWithinMemory(
  args: string[],
  diagnostic: (line: string) => void,
): Promise<void> {
  // The server process as `divan serve` starts it (the launcher's node flags and environment),
  // since what is measured is its memory.
  const server = await startChildServer([...args, '--log-level', 'warn'], {}, { asLaunched: true });
  try {
    const created = await raw(server.url, 'PUT', '/mem');
    assert.equal(created.status, 201);
    const pid = server.child.pid!;
    // Warm up: a whole round first. Streaming makes V8 grow its young generation to its working
    // size (up to ~32 MiB more, whatever the attachment's size, as any long-running server has);
    // the round measured is the second, whose growth is what streaming itself holds.
    const warm = await upAndDown(server.url, pid, 'warm');
    diagnostic(`warm-up round: ${warm.text}`);
    const measured = await upAndDown(server.url, pid, 'big');
    diagnostic(`measured round: ${measured.text}`);
    assert.ok(measured.growth <= MAX_GROWTH, `RSS grew by ${mib(measured.growth)} MiB (${measured.text})`);
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
}

const mib = (n: number) => (n / 1024 / 1024).toFixed(1);

/** Uploads SIZE bytes as `/mem/{id}/blob.bin` and downloads them, checked; the peaks over the RSS before. */
async function upAndDown(base: string, pid: number, id: string): Promise<{ growth: number; text: string }> {
  const baseline = rssOf(pid);
  const sent = createHash('md5');
  const uploadPeak = await peakDuring(pid, async () => {
    const r = await raw(base, 'PUT', `/mem/${id}/blob.bin`, {
      headers: { 'content-length': SIZE, 'content-type': 'application/octet-stream' },
      body: (async function* () {
        for (let n = 0; n < SIZE / CHUNK; n++) {
          const chunk = chunkOf(n);
          sent.update(chunk);
          yield chunk;
        }
      })(),
    });
    assert.equal(r.status, 201, r.body.toString());
  });
  const digest = `md5-${sent.digest('base64')}`;
  const doc = await raw(base, 'GET', `/mem/${id}`);
  assert.deepEqual(
    [doc.json._attachments['blob.bin'].digest, doc.json._attachments['blob.bin'].length],
    [digest, SIZE],
  );
  const received = createHash('md5');
  let bytes = 0;
  const downloadPeak = await peakDuring(pid, async () => {
    await new Promise<void>((resolve, reject) => {
      const url = new URL(`${base}/mem/${id}/blob.bin`);
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, headers: { authorization: AUTH } },
        (res) => {
          assert.equal(res.statusCode, 200);
          res.on('data', (chunk: Buffer) => {
            received.update(chunk);
            bytes += chunk.length;
          });
          res.on('end', resolve);
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  });
  assert.equal(bytes, SIZE);
  assert.equal(`md5-${received.digest('base64')}`, digest);
  return {
    growth: Math.max(uploadPeak, downloadPeak) - baseline,
    text: `RSS before ${mib(baseline)} MiB, upload peak +${mib(uploadPeak - baseline)}, download peak +${mib(downloadPeak - baseline)}`,
  };
}
