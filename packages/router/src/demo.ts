/**
 * `npm start` (until the database exists): prints the route table of the API contract's example,
 * like `rails routes`.
 */
import { demoRoutes } from './demo-routes.js';
import { formatRoutes } from './format/table.js';

console.log(formatRoutes(demoRoutes()));
