import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

// The dashboard serves the build from /static/; `root` is this folder so `vite build` works from anywhere.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/static/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill would be the only reason for an inline script; every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    reportCompressedSize: false,
  },
  server: {
    // `vite web` during development: the API runs on the dashboard's own port.
    proxy: { '/api': 'http://127.0.0.1:8081' },
  },
})
