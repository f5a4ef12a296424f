import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AnswerCache } from '../src/views/query/answer-cache.js';

describe('view answer cache', () => {
  it('keeps an answer the second time it is offered, not the first', () => {
    const cache = new AnswerCache(1024, 256, 4);
    cache.set('"a"', Buffer.from('one'));
    assert.equal(cache.get('"a"'), undefined);
    cache.set('"a"', Buffer.from('one'));
    assert.equal(cache.get('"a"')?.toString(), 'one');
    cache.set('"big"', Buffer.alloc(300));
    cache.set('"big"', Buffer.alloc(300));
    assert.equal(cache.get('"big"'), undefined, 'too large to keep');
  });

  it('remembers a bounded number of answers seen once (the oldest go first)', () => {
    const cache = new AnswerCache(1024, 256, 2);
    for (const etag of ['"1"', '"2"', '"3"']) cache.set(etag, Buffer.from(etag));
    cache.set('"1"', Buffer.from('"1"'));
    assert.equal(cache.get('"1"'), undefined, 'forgotten: seen once again');
    cache.set('"3"', Buffer.from('"3"'));
    assert.equal(cache.get('"3"')?.toString(), '"3"');
  });

  it('stays within its byte budget, keeping the most recently used (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 40 }), fc.boolean()), {
          maxLength: 300,
        }),
        (ops) => {
          const budget = 200;
          const cache = new AnswerCache(budget, 64, 50);
          for (const [key, size, read] of ops) {
            const etag = `"${key}"`;
            if (read) cache.get(etag);
            else cache.set(etag, Buffer.alloc(size, key));
          }
          let bytes = 0;
          for (let key = 0; key <= 30; key++) {
            const body = cache.get(`"${key}"`);
            if (body !== undefined) {
              bytes += body.length;
              assert.ok(
                body.every((b) => b === key),
                'an answer is the one stored under its ETag',
              );
            }
          }
          assert.ok(bytes <= budget, `${bytes} bytes kept, budget ${budget}`);
        },
      ),
    );
  });
});
