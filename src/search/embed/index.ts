// Chooses the embedder from the settings (embedder.ts has the seam).
import type { SearchSettings } from '../settings.js'
import type { Embedder } from './embedder.js'
import { HttpEmbedder } from './openai.js'

/** The embedder the settings describe, or undefined when EMBEDDER_URL is unset (semantic search off). */
export function createEmbedder(s: SearchSettings): Embedder | undefined {
  if (!s.embedderUrl) return undefined
  return new HttpEmbedder({
    url: s.embedderUrl,
    model: s.embedderModel!,
    apiKey: s.embedderApiKey,
    dimensions: s.embedderDimensions,
    timeoutMs: s.embedderTimeoutMs,
    batch: s.embedderBatch,
    retries: s.embedderRetries,
  })
}

export { EmbedderError, type Embedder } from './embedder.js'
