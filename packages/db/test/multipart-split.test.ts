/**
 * `splitMultipart`: a multipart body held whole split into its parts as `MultipartReader` reads
 * them (a first delimiter without its CRLF, a preamble, transport padding, a part without
 * headers), each part a view of the body, and a body cut short refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MultipartReader, splitMultipart } from '../src/support/multipart.js';

async function readAll(bytes: Buffer, boundary: string) {
  const reader = new MultipartReader(
    (async function* () {
      yield bytes;
    })(),
    boundary,
  );
  const parts: { headers: Map<string, string>; body: Buffer }[] = [];
  for (let headers = await reader.next(); headers !== undefined; headers = await reader.next()) {
    parts.push({ headers, body: await reader.bodyBytes(Number.MAX_SAFE_INTEGER) });
  }
  return parts;
}

describe('splitMultipart', () => {
  const bodies = [
    '--B\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n--B\r\nContent-Disposition: attachment; filename="x"\r\n\r\n\r\n--\r\n\r\n--B--',
    'preamble\r\n--B  \r\nX-One: 1\r\nX-Two:  two \r\n\r\nbody\r\n--B\r\n\r\nno headers\r\n--B--\r\nepilogue',
    '\r\n--B\r\n\r\n\r\n--B--\r\n',
  ];
  for (const [k, text] of bodies.entries()) {
    it(`reads what MultipartReader reads (body ${k})`, async () => {
      const bytes = Buffer.from(text);
      const split = splitMultipart(bytes, 'B');
      assert.deepEqual(
        split.map(({ headers, body }) => [[...headers], body.toString()]),
        (await readAll(bytes, 'B')).map(({ headers, body }) => [[...headers], body.toString()]),
      );
      // Views of the body given, not copies.
      for (const { body } of split) assert.equal(body.buffer, bytes.buffer);
    });
  }

  it('refuses a body cut short', () => {
    for (const text of ['--B\r\nX: 1\r\n\r\nno end', '--B\r\nX: 1', 'no delimiter', '--B']) {
      assert.throws(() => splitMultipart(Buffer.from(text), 'B'), { reason: 'attachment shorter than expected' });
    }
  });
});
