import type { FeatureModule } from './feature.js';
import { mcpRoutes } from '../mcp/mcp-routes.js';

/** The MCP tool server: a tool per route of the table, each call run through the front. */
export const mcpFeature: FeatureModule = {
  name: 'mcp',
  build: ({ routes, config, dispatch }) => ({
    routes: mcpRoutes({ routes: () => routes.all, dispatch: async (req) => dispatch(req), publicUrl: config.publicUrl }),
  }),
};
