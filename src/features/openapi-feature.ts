import type { FeatureModule } from './feature.js';
import { metaRoutes } from '../api/meta-routes.js';

/** The API's own description (OpenAPI), made from the route table once every feature is in it. */
export const openApiFeature: FeatureModule = {
  name: 'openapi',
  build: ({ routes, config }) => ({ routes: metaRoutes(() => routes.all, config.publicUrl) }),
};
