import type { Database } from '@app/common'
import { createMemeWriteRepository } from '../memes/write-repository.ts'
import type { ReadModelReplica } from '../search/replica.ts'
import { createTagsRepository, type TagAlias } from './repository.ts'

/** Aliases one tag may have: each is a word every query expands against, so their number is bounded. */
export const MAX_ALIASES_PER_TAG = 20

/** Why an alias was not added, or the alias added. */
export type AddAliasOutcome =
  | { added: TagAlias }
  | { missingTag: true }
  /** The name is a catalog tag, or already an alias (of `aliasOf`). */
  | { shadows: 'tag' }
  | { shadows: 'alias'; aliasOf: string }
  | { tooMany: true }

/** What the tag use cases tell the read model after each commit. */
export type AliasNotifier = Pick<ReadModelReplica, 'aliasesChanged'>

/**
 * Changes of tag aliases, each in one transaction with the tag-name lock and its audit row; after the commit
 * every instance's read model reloads the aliases.
 */
export function createTagUseCases(db: Database, readModel: AliasNotifier) {
  return {
    /** Adds `alias` (normalized) to catalog tag `tag` unless it would shadow a tag or another alias. */
    async addAlias(actor: string, tag: string, alias: string): Promise<AddAliasOutcome> {
      const outcome = await db.transaction(async (tx): Promise<AddAliasOutcome> => {
        const tags = createTagsRepository(tx)
        await tags.lockNames()
        if (!(await tags.find(tag))) return { missingTag: true }
        if (await tags.find(alias)) return { shadows: 'tag' }
        const aliasOf = await tags.aliasTarget(alias)
        if (aliasOf !== null) return { shadows: 'alias', aliasOf }
        if ((await tags.aliasesOf(tag)).length >= MAX_ALIASES_PER_TAG) return { tooMany: true }
        const added = await tags.createAlias(alias, tag)
        await createMemeWriteRepository(tx).audit({ actor, action: 'tag.alias.add', detail: { tag, alias } })
        return { added }
      })
      if ('added' in outcome) await readModel.aliasesChanged()
      return outcome
    },

    /** Removes an alias of `tag`; false when the tag has no such alias. */
    async removeAlias(actor: string, tag: string, alias: string): Promise<boolean> {
      const removed = await db.transaction(async (tx) => {
        const tags = createTagsRepository(tx)
        await tags.lockNames()
        if (!(await tags.deleteAlias(alias, tag))) return false
        await createMemeWriteRepository(tx).audit({ actor, action: 'tag.alias.remove', detail: { tag, alias } })
        return true
      })
      if (removed) await readModel.aliasesChanged()
      return removed
    },
  }
}

export type TagUseCases = ReturnType<typeof createTagUseCases>
