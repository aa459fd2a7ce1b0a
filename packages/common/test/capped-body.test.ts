import { test } from 'tap'
import { readCappedText } from '../src/capped-body.ts'

/** A response whose body arrives in the given pieces, recording whether the reader cancelled it. */
function streamed(pieces: string[]) {
  const state = { cancelled: false, pulled: 0 }
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.pulled === pieces.length) return controller.close()
      controller.enqueue(encoder.encode(pieces[state.pulled++]))
    },
    cancel() {
      state.cancelled = true
    },
  })
  return { response: new Response(body), state }
}

test('a body within the cap is read whole, as UTF-8 across chunk boundaries', async (t) => {
  const bytes = Buffer.from('héllo wörld')
  const chunks = [bytes.subarray(0, 2), bytes.subarray(2, 7), bytes.subarray(7)]
  const response = new Response(new Blob(chunks))
  t.equal(await readCappedText(response, bytes.length), 'héllo wörld', 'exactly at the cap')
  t.equal(await readCappedText(new Response('{"ok":true}'), 1000), '{"ok":true}')
})

test('a body past the cap gives null and is cancelled without reading the rest', async (t) => {
  const { response, state } = streamed(['a'.repeat(6), 'b'.repeat(6), 'c'.repeat(6), 'd'.repeat(6)])
  t.equal(await readCappedText(response, 10), null)
  t.ok(state.cancelled, 'the stream was cancelled')
  t.equal(state.pulled, 2, 'stopped at the chunk that passed the cap')
})

test('no body reads as empty text', async (t) => {
  t.equal(await readCappedText(new Response(null, { status: 204 }), 10), '')
  t.equal(await readCappedText(new Response(''), 10), '')
})
