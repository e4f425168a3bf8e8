import type { Route } from './http-types.js';

/** The node's routes, each feature's added in turn; what lists them (OpenAPI, MCP) reads it when asked. */
export class RouteTable {
  private readonly list: Route[] = [];

  add(routes: readonly Route[]): void {
    this.list.push(...routes);
  }

  get all(): readonly Route[] {
    return this.list;
  }
}
