/**
 * nginx (Debian's nginx-light) serving a folder as /media/<file>: the static-file baseline of bench/media.ts.
 * One worker, sendfile on, a generated config in a temp dir, on a free loopback port.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { freePort } from '@app/testing'

export const NGINX = '/usr/sbin/nginx'

export interface NginxProcess {
  port: number
  /** The master and its worker: CPU time is summed over both. */
  pids(): number[]
  stop(): Promise<void>
}

export function nginxAvailable(): boolean {
  return existsSync(NGINX)
}

/** Starts nginx in the foreground serving `mediaDir` under /media/ (files without extension, as image/webp). */
export async function startNginx(mediaDir: string): Promise<NginxProcess> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nginx-bench-'))
  const port = await freePort()
  // Started as root, nginx's worker runs as nobody: the files must be readable to it.
  await chmod(mediaDir, 0o755)
  const temp = (name: string) => path.join(dir, name)
  await writeFile(
    temp('nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000000;
  keepalive_timeout 65s;
  client_body_temp_path ${temp('body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  default_type image/webp;
  server {
    listen 127.0.0.1:${port};
    location /media/ { alias ${mediaDir}/; }
  }
}
`,
  )
  const master: ChildProcess = spawn(NGINX, ['-e', temp('error.log'), '-p', dir, '-c', temp('nginx.conf')], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise((resolve) => master.once('exit', resolve))
  // Ready when it answers.
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/`)
      break
    } catch {
      if (Date.now() > deadline || master.exitCode !== null) throw new Error(`nginx did not start (see ${temp('error.log')})`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  const masterPid = master.pid ?? 0
  return {
    port,
    pids() {
      const children = readFileSync(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8').trim()
      return [masterPid, ...children.split(/\s+/).filter(Boolean).map(Number)]
    },
    async stop() {
      master.kill('SIGQUIT')
      await exited
      await rm(dir, { recursive: true, force: true })
    },
  }
}
