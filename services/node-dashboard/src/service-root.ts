import path from 'node:path'
import { packageRoot } from '@app/common'

/** services/node-dashboard: found the same from the sources and from the compiled dist/server.js. */
export const serviceRoot = packageRoot(import.meta.url)

/** The Vite build of web/ that GET / and /static/ serve; `pnpm build` writes it, the service never does. */
export const webDistDir = path.join(serviceRoot, 'dist', 'web')
