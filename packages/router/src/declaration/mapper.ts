/**
 * The routing DSL (Rails' `ActionDispatch::Routing::Mapper`), put together from its modules as
 * Rails does: mapper-base.ts (the scope stack and `match`), http-helpers.ts (`get`, `post`,
 * ...), scoping.ts (`scope`, `namespace`, ...), concerns.ts, resources.ts (`resources`,
 * `resource`, `member`, ...). It only produces RouteSpecs, in declaration order; the route set
 * compiles them.
 */
import { Resources } from './resources.js';

export type { Block, ConcernBlock, Names, RouteSink } from './mapper-base.js';

export class Mapper extends Resources {}
