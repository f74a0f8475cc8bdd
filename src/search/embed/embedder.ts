// The embedder seam: texts in, vectors out, in batches, with a model name (what the vectors were
// made with: another model's vectors are not comparable) and, once known, a dimension. One
// implementation: an OpenAI-compatible HTTP endpoint (openai.ts), which OpenAI, Ollama, vLLM,
// Hugging Face TEI and LM Studio all serve. No local model runs in the node (docs/search.md, "Why
// no local model").
export interface Embedder {
  /** The model, as the vectors' generation: vectors of another model are made again. */
  readonly model: string
  /** Vector length: the configured one, else the one the first answer had (undefined before). */
  readonly dimensions: number | undefined
  /**
   * One vector per text, in order; `retries` overrides the configured number of further attempts.
   * Throws EmbedderError.
   */
  embed(texts: string[], opts?: { signal?: AbortSignal; retries?: number }): Promise<Float32Array[]>
}

/**
 * Why an embedding failed. `setting` names the setting to fix when the answer shows a
 * misconfiguration (a refused key, an unknown model, a wrong URL or dimension); `retryable` is
 * true for failures that may pass by themselves (unreachable, timed out, overloaded).
 */
export class EmbedderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly setting?: string,
    readonly status?: number,
  ) {
    super(message)
    this.name = 'EmbedderError'
  }
}
