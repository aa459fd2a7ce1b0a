// Loaded into a service by the memory benches (`node --import heap-reporter.mjs dist/server.js`): answers
// {heap: true, gc} messages on the IPC channel with process.memoryUsage() in MiB, after a full GC when asked.
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc')
const mib = (bytes) => Math.round((bytes / 1048576) * 10) / 10

if (process.send) {
  process.on('message', (message) => {
    if (!message?.heap) return
    if (message.gc) {
      gc()
      gc()
    }
    const usage = process.memoryUsage()
    process.send({
      rss: mib(usage.rss),
      heapUsed: mib(usage.heapUsed),
      heapTotal: mib(usage.heapTotal),
      external: mib(usage.external),
      arrayBuffers: mib(usage.arrayBuffers),
    })
  })
  // The channel must not keep the service alive when it is asked to stop.
  process.channel?.unref()
}
