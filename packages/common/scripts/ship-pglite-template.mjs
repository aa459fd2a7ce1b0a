// Ships an initialized empty embedded database with the build (dist/pglite-template): a service's first
// start on an empty DATA_DIR copies it instead of running initdb. Made once per PGlite version and settings.
const { buildPgliteTemplate } = await import('../dist/index.js')
const dir = await buildPgliteTemplate()
console.log(`embedded database template ${dir}`)
