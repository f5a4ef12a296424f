export { draw } from './draw.js';
export { ArgumentError } from './errors.js';
export type { Block, ConcernBlock, Names } from './declaration/mapper.js';
export type { TypedMapper, BlockRoutes } from './typed-mapper.js';
export type {
  TypedRoute,
  UnknownRoute,
  Helpers,
  Helper,
  HelperArgs,
  RouteParams,
  RouteName,
  SegmentValue,
  HandlerTableFor,
  AnyScope,
  RootScope,
} from './typed-routes.js';
import type { TypedMapper } from './typed-mapper.js';
import type { UnknownRoute } from './typed-routes.js';
/** The mapper a declaration block receives, for blocks written as functions of their own. */
// biome-ignore lint/suspicious/noExplicitAny: a block of its own may be used in any scope, with any routes before it
export type Mapper = TypedMapper<any, UnknownRoute>;
export {
  CANONICAL_ACTIONS,
  RESOURCE_OPTIONS,
  VALID_ON_OPTIONS,
  type MatchOptions,
  type ResourcesOptions,
  type ScopeOptions,
  type Verb,
  type Constraint,
  type RouteMiddleware,
} from './declaration/options.js';
export { RESOURCE_METHOD_SCOPES, RESOURCE_SCOPES, type ScopeLevel } from './declaration/scope.js';
export { RouteSet } from './route-set.js';
export { formatRoutes } from './format/table.js';
export { helperDeclarations } from './format/helper-types.js';
export { camelHelperName } from './format/helper-name.js';
export {
  createNodeListener,
  HttpError,
  type NodeListenerOptions,
  type Context,
  type Handlers,
  type HandlerFunction,
  type NodeListener,
} from './adapters/node.js';
export { singularize, pluralize } from './support/inflection.js';
export type { RouteInfo, Match, RouteSetLike, RouteHelper, UrlOptions } from './types.js';
