import type { Queryable } from '@app/common'
import type { CaptionWord } from './providers/types.ts'

/** The OCR word boxes of memes' captions; takes the database or an open transaction. */
export function createCaptionWordsRepository(db: Queryable) {
  return {
    /** Stores the words read for this caption; null (a captioner that cannot tell where text is) removes any. */
    async replace(memeId: string, caption: string, words: CaptionWord[] | null): Promise<void> {
      if (words === null) {
        await db.query('DELETE FROM meme_caption_words WHERE meme_id = $1', [memeId])
        return
      }
      await db.query(
        `INSERT INTO meme_caption_words (meme_id, caption, words) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (meme_id) DO UPDATE SET caption = EXCLUDED.caption, words = EXCLUDED.words, created_at = now()`,
        [memeId, caption, JSON.stringify(words)],
      )
    },

    /** The words stored for the meme's current caption; null when none were (another captioner, an admin edit). */
    async forCaption(memeId: string, caption: string): Promise<CaptionWord[] | null> {
      const { rows } = await db.query<{ words: CaptionWord[] | string }>(
        'SELECT words FROM meme_caption_words WHERE meme_id = $1 AND caption = $2',
        [memeId, caption],
      )
      const words = rows[0]?.words
      if (words === undefined) return null
      return typeof words === 'string' ? (JSON.parse(words) as CaptionWord[]) : words
    },
  }
}

export type CaptionWordsRepository = ReturnType<typeof createCaptionWordsRepository>
