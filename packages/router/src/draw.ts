/**
 * `draw((r) => r.resources('posts'))`: runs a declaration block and returns the route set, typed
 * with the routes the block returns (see typed-mapper.ts; a block that returns nothing gives a
 * set of routes of unknown names).
 */
import { Mapper } from './declaration/mapper.js';
import { RouteSet } from './route-set.js';
import type { BlockRoutes, TypedMapper } from './typed-mapper.js';
import type { ConcernsFollowed, RootScope } from './typed-routes.js';

export function draw<Returned>(
  // A typed declaration applying a concern fails here, its message saying why and what to do.
  block: (r: TypedMapper<RootScope, never>) => Returned & ConcernsFollowed<BlockRoutes<Returned>>,
): RouteSet<BlockRoutes<Returned>> {
  const routes = new RouteSet<BlockRoutes<Returned>>();
  // The runtime mapper is the typed one: the types only describe what its methods return.
  block(new Mapper(routes) as unknown as TypedMapper<RootScope, never>);
  return routes;
}
