export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * Asserts that `app` registers every route a test drives and returns whether it does. A missing route
 * is a missing feature, so it fails the test (never a skip); a caller returns early on false.
 */
export function expectRoutes(
  t: { same(found: unknown, wanted: unknown, message: string): unknown },
  app: { hasRoute(route: { method: RouteMethod; url: string }): boolean },
  routes: readonly (readonly [RouteMethod, string])[],
): boolean {
  const missing = routes.filter(([method, url]) => !app.hasRoute({ method, url })).map(([method, url]) => `${method} ${url}`)
  t.same(missing, [], 'every endpoint the test drives is registered')
  return missing.length === 0
}
