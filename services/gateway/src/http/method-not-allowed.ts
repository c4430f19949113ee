import type { Router } from 'express';
import type { Route } from '../routes/route';
import { problem, sendProblem } from './problem';

/** The methods each path of the route table answers, HEAD included wherever GET is (Express serves it). */
export function allowedMethods(routes: Route[]): Map<string, string[]> {
  const byPath = new Map<string, string[]>();
  // Fewer parameters first: `/para/rescan` must be matched before `/para/:id`.
  const params = (path: string) => path.split('/').filter((s) => s.startsWith(':')).length;
  for (const r of [...routes].sort((a, b) => params(a.path) - params(b.path))) {
    const methods = byPath.get(r.path) ?? [];
    methods.push(r.method.toUpperCase(), ...(r.method === 'get' ? ['HEAD'] : []));
    byPath.set(r.path, methods);
  }
  return byPath;
}

/**
 * Any other method on a known path answers 405 problem+json with `Allow`. Mounted after
 * every route, static paths (`/para/tree`) before the parameterised ones beside them
 * (`/para/:id`).
 */
export function mountMethodNotAllowed(api: Router, routes: Route[]): void {
  for (const [path, methods] of allowedMethods(routes)) {
    const allow = methods.join(', ');
    api.all(path, (req, res) => {
      res.setHeader('Allow', allow);
      sendProblem(res, problem(405, 'Method not allowed', `${req.method} is not allowed here; allowed: ${allow}`));
    });
  }
}
