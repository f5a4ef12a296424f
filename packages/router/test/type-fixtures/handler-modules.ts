// Handler modules (`import * as posts`) are checked like inline literals: an action no route
// declares is an error naming it: every adapter takes `CheckedHandlers<T, R>` (adapter-handler-modules.ts).
import { draw, type CheckedHandlers, type HandlerTableFor, type TypedRoute } from '@divan/router';
import type {} from '../../src/adapters/node.js';
import type { TypedRouteSetLike } from '../../src/typed-routes.js';
import * as comments from './handlers/comments.js';
import * as posts from './handlers/posts.js';

/** An adapter's signature with the check (the adapters' own are in src/adapters/). */
declare function serve<R extends TypedRoute, const T extends HandlerTableFor<R, 'node'>>(
  routes: TypedRouteSetLike<R>,
  handlers: CheckedHandlers<T, R>,
): void;

const routes = draw((r) =>
  r.resources('posts', { only: ['index', 'show'] }, (r) => r.resources('comments', { only: ['index'] })),
);

serve(routes, { comments });
serve(routes, { posts, comments }); // error: no route declares posts#shwo
serve(routes, { post: comments }); // error: 'post' does not exist
serve(routes, { posts: { index: () => 'ok', shwo: () => 'typo' } }); // error: shwo
const misnamed = { post: comments };
serve(routes, misnamed); // error: no properties in common
const partly = { comments, post: comments };
serve(routes, partly); // error: no route declares the handler 'post'
