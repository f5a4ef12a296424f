// The six declaration errors of Rails 6.1's Mapper: ArgumentError, messages verbatim, thrown at declaration time.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { draw, ArgumentError } from '../src/index.js';
import type { Mapper } from '../src/index.js';

const rootAny = (r: Mapper, ...args: unknown[]): unknown => (r.root as (...a: unknown[]) => unknown).apply(r, args);

function expectArgumentError(fn: () => unknown, message: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `expected an ArgumentError "${message}"`);
  assert.ok(caught instanceof ArgumentError, 'instanceof ArgumentError');
  assert.ok(caught instanceof Error, 'instanceof Error');
  const err = caught as Error;
  assert.equal(err.name, 'ArgumentError');
  assert.equal(err.message, message);
}

describe('ArgumentError', () => {
  test('is a subclass of Error named ArgumentError', () => {
    const e = new ArgumentError('boom');
    assert.ok(e instanceof Error);
    assert.ok(e instanceof ArgumentError);
    assert.equal(e.name, 'ArgumentError');
    assert.equal(e.message, 'boom');
  });
});

describe('declaration errors', () => {
  test("collection outside a resource scope: can't use collection outside resource(s) scope", () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.collection((r) => {
            r.get('search');
          });
        }),
      "can't use collection outside resource(s) scope",
    );
  });

  test("member outside a resource scope: can't use member outside resource(s) scope", () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.member((r) => {
            r.get('preview');
          });
        }),
      "can't use member outside resource(s) scope",
    );
  });

  test("new outside a resource scope: can't use new outside resource(s) scope", () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.new((r) => {
            r.get('draft');
          });
        }),
      "can't use new outside resource(s) scope",
    );
  });

  test("nested outside a resource scope: can't use nested outside resource(s) scope", () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.nested((r) => {
            r.get('stats');
          });
        }),
      "can't use nested outside resource(s) scope",
    );
  });

  test('inside a namespace or scope is still outside a resource scope', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.namespace('admin', (r) => {
            r.collection(() => {});
          });
        }),
      "can't use collection outside resource(s) scope",
    );
    expectArgumentError(
      () =>
        draw((r) => {
          r.scope('blog', (r) => {
            r.member(() => {});
          });
        }),
      "can't use member outside resource(s) scope",
    );
  });

  test('on: member outside a resource scope is the member error', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.get('x', { on: 'member' });
        }),
      "can't use member outside resource(s) scope",
    );
  });

  test('on: collection and on: new outside a resource scope', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.get('x', { on: 'collection' });
        }),
      "can't use collection outside resource(s) scope",
    );
    expectArgumentError(
      () =>
        draw((r) => {
          r.get('x', { on: 'new' });
        }),
      "can't use new outside resource(s) scope",
    );
  });

  test('match with an unknown on: value: Unknown scope <value> given to :on', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.resources('posts', (r) => {
            r.get('x', { on: 'photos' });
          });
        }),
      'Unknown scope photos given to :on',
    );
  });

  test('an unknown on: value is reported even outside a resource scope (checked first)', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.get('x', { on: 'photos', to: 'a#b' });
        }),
      'Unknown scope photos given to :on',
    );
  });

  test('the unknown on: value is reported as written, for match too', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          r.resources('posts', (r) => {
            r.match('y', { on: 'members', via: 'get' });
          });
        }),
      'Unknown scope members given to :on',
    );
  });

  test('root with neither a text path nor a lone options map: must be called with a path and/or options', () => {
    expectArgumentError(
      () =>
        draw((r) => {
          rootAny(r, 42);
        }),
      'must be called with a path and/or options',
    );
    expectArgumentError(
      () =>
        draw((r) => {
          rootAny(r, { to: 'a#b' }, { as: 'c' });
        }),
      'must be called with a path and/or options',
    );
  });

  test('errors are raised at declaration time, before later declarations run', () => {
    let reached = false;
    assert.throws(
      () =>
        draw((r) => {
          r.collection(() => {});
          reached = true;
        }),
      ArgumentError,
    );
    assert.equal(reached, false);
  });

  test('the error is thrown by the call itself and can be caught inside draw', () => {
    const routes = draw((r) => {
      assert.throws(() => r.member(() => {}), ArgumentError);
      r.resources('posts', { only: 'index' });
    });
    assert.equal(routes.list().length, 1);
  });

  test('the valid on: values are accepted', () => {
    assert.doesNotThrow(() =>
      draw((r) => {
        r.resources('posts', { only: [] }, (r) => {
          r.get('a', { on: 'member' });
          r.get('b', { on: 'collection' });
          r.get('c', { on: 'new' });
        });
      }),
    );
  });
});
