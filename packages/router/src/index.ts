export { draw } from './draw.js';
export { ArgumentError } from './errors.js';
export { Mapper, type Block, type ConcernBlock, type Names } from './declaration/mapper.js';
export {
  CANONICAL_ACTIONS,
  RESOURCE_OPTIONS,
  VALID_ON_OPTIONS,
  type MatchOptions,
  type ResourcesOptions,
  type ScopeOptions,
  type Verb,
  type Constraint,
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
