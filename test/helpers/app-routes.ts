/** A route as the app registered it. */
export interface Route {
  method: string;
  path: string;
}

/** Every route the app registered, read from Fastify's own listing of them (printRoutes). */
export function routesOf(listing: string): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of listing.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] as string).length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + (match[2] as string);
    stack[depth] = path;
    for (const method of (match[3] as string).split(', ')) {
      if (method !== 'HEAD') routes.push({ method, path });
    }
  }
  return routes;
}
