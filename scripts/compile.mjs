// Compiles a package's runtime entry points to JavaScript in its dist/ folder, for the production process:
//   node ../../scripts/compile.mjs server=src/server.ts [name=src/other.ts ...]   (run in the package folder)
// Each entry becomes one ES module dist/<name>.js holding the package's own code; npm dependencies stay imports,
// resolved from the package's node_modules as from the sources. The workspace package @app/common is imported as
// its own compiled build (@app/common/dist), so its dependencies resolve from its own folder too.
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { build } from 'esbuild'

const entryPoints = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, file] = arg.split('=')
    if (!name || !file) throw new Error(`expected name=path, got ${arg}`)
    return [name, file]
  }),
)
if (Object.keys(entryPoints).length === 0) throw new Error('usage: node compile.mjs name=src/entry.ts ...')

// Only the files this script writes: dist/ may hold other builds (the dashboard's dist/web).
for (const name of Object.keys(entryPoints)) await rm(path.join('dist', `${name}.js`), { force: true })

await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The oldest Node the repository supports (package.json engines).
  target: 'node20.19',
  packages: 'external',
  alias: { '@app/common': '@app/common/dist', '@app/node-simulator': '@app/node-simulator/dist' },
  // Readable stack traces in production logs: names and code as written.
  minify: false,
  keepNames: true,
  logLevel: 'warning',
})
console.log(
  `compiled ${Object.keys(entryPoints)
    .map((name) => `dist/${name}.js`)
    .join(', ')}`,
)
