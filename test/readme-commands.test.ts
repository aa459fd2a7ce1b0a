import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)))

const readmes = [
  'README.md',
  ...['services', 'packages'].flatMap((dir) =>
    readdirSync(path.join(root, dir))
      .map((name) => path.join(dir, name, 'README.md'))
      .filter((file) => existsSync(path.join(root, file))),
  ),
]

interface Manifest {
  name: string
  scripts?: Record<string, string>
}
const manifest = (dir: string): Manifest => JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'))
const workspaces = new Map(
  ['services', 'packages'].flatMap((dir) =>
    readdirSync(path.join(root, dir))
      .filter((name) => existsSync(path.join(root, dir, name, 'package.json')))
      .map((name) => {
        const m = manifest(path.join(dir, name))
        return [m.name, { dir: path.join(dir, name), scripts: m.scripts ?? {} }] as const
      }),
  ),
)
const rootScripts = manifest('.').scripts ?? {}

// pnpm's own commands, which are not package scripts.
const builtins = new Set(['install', 'add', 'exec', 'dlx', 'deploy', 'fetch', 'run', 'why', 'update', 'list', 'store'])

/** Every inline or fenced shell command of a Markdown text. */
function commandsOf(markdown: string): string[] {
  const inline = [...markdown.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string)
  const fenced = [...markdown.matchAll(/```(?:sh|bash|shell)?\n([\s\S]*?)```/g)].flatMap((m) => (m[1] as string).split('\n'))
  return [...inline, ...fenced].flatMap((line) => line.split(/&&|\|/)).map((c) => c.trim())
}

test('every pnpm script a README names exists in the package it names', async (t) => {
  for (const readme of readmes) {
    const dir = path.dirname(readme)
    for (const command of commandsOf(readFileSync(path.join(root, readme), 'utf8'))) {
      const match = command.match(/^(?:npx -y )?pnpm(?:@\d+)?((?: (?:-r|--if-present|--filter [@\w./-]+))*) ([a-z][\w:-]*)/)
      if (!match) continue
      const [, options = '', script = ''] = match
      if (builtins.has(script) || options.includes('-r')) continue
      const filtered = options.match(/--filter ([@\w./-]+)/)?.[1]
      // In a package's README a bare `pnpm x` runs in that package; --filter names one.
      const target = filtered ? workspaces.get(filtered) : dir === '.' ? { dir: '.', scripts: rootScripts } : undefined
      const scripts = target?.scripts ?? [...workspaces.values()].find((w) => w.dir === dir)?.scripts ?? {}
      t.ok(
        Object.hasOwn(scripts, script),
        `${readme}: \`${command}\` names script "${script}" of ${filtered ?? (dir === '.' ? 'the root' : dir)}`,
      )
    }
  }
})

test('every script or file a README runs with node or bash exists', async (t) => {
  for (const readme of readmes) {
    for (const command of commandsOf(readFileSync(path.join(root, readme), 'utf8'))) {
      const match = command.match(/^(?:node(?: --import tsx)?|bash) ((?:services|packages|scripts|\.ci|test)\/[\w./-]+)/)
      if (!match) continue
      const file = match[1] as string
      if (file.includes('<')) continue
      t.ok(existsSync(path.join(root, file)), `${readme}: \`${command}\` runs ${file}, which exists`)
    }
  }
})
