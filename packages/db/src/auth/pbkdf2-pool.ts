/**
 * PBKDF2 off the event loop, a bounded number at a time: libuv's pool has 4 threads, and on a
 * machine with few cores 4 hashes at once leave the event loop thread waiting for a core. One
 * core stays for requests; the other logins queue.
 */
import { availableParallelism } from 'node:os';
import { pbkdf2 } from 'node:crypto';

const SLOTS = Math.max(1, Math.min(4, availableParallelism() - 1));
let running = 0;
const waiting: (() => void)[] = [];

export async function pbkdf2Limited(
  password: string,
  salt: string,
  iterations: number,
  keyLength: number,
  digest: string,
): Promise<Buffer> {
  if (running >= SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      pbkdf2(password, salt, iterations, keyLength, digest, (error, key) => (error ? reject(error) : resolve(key)));
    });
  } finally {
    running--;
    waiting.shift()?.();
  }
}
