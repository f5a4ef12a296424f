// Every adapter checks a handler module (`import * as posts`) as it checks an inline literal:
// an action no route declares is an error naming it, and inline actions keep typed params.
import { draw } from '@divan/router';
import { expressRouter } from '../../src/adapters/express.js';
import { fastifyRouter } from '../../src/adapters/fastify.js';
import { honoRouter } from '../../src/adapters/hono.js';
import { createNodeListener } from '../../src/adapters/node.js';
import * as comments from './handlers/comments.js';
import * as posts from './handlers/posts.js';

const routes = draw((r) =>
  r.resources('posts', { only: ['index', 'show'] }, (r) => r.resources('comments', { only: ['index'] })),
);

createNodeListener(routes, { comments });
createNodeListener(routes, { comments: { index: (ctx) => ctx.params.post_id } });
createNodeListener(routes, { posts, comments }); // error: no route declares posts#shwo
createNodeListener(routes, { posts: { index: () => 'ok', shwo: () => 'typo' } }); // error: shwo

expressRouter(routes, { comments });
expressRouter(routes, { comments: { index: (req) => req.params.post_id } });
expressRouter(routes, { posts, comments }); // error: no route declares posts#shwo
expressRouter(routes, { posts: { index: () => 'ok', shwo: () => 'typo' } }); // error: shwo

fastifyRouter(routes, { comments });
fastifyRouter(routes, { comments: { index: (request) => request.params.post_id } });
fastifyRouter(routes, { posts, comments }); // error: no route declares posts#shwo
fastifyRouter(routes, { posts: { index: () => 'ok', shwo: () => 'typo' } }); // error: shwo

honoRouter(routes, { comments });
honoRouter(routes, { comments: { index: (c) => c.get('params').post_id } });
honoRouter(routes, { posts, comments }); // error: no route declares posts#shwo
honoRouter(routes, { posts: { index: () => 'ok', shwo: () => 'typo' } }); // error: shwo
