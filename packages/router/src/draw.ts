/**
 * `draw((r) => { r.resources('posts'); })`: runs a declaration block and returns the route set.
 */
import { Mapper, type Block } from './declaration/mapper.js';
import { RouteSet } from './route-set.js';

export function draw(block: Block): RouteSet {
  const routes = new RouteSet();
  block(new Mapper(routes));
  return routes;
}
