// The best k of a stream of items, for ranking search hits (lexical.ts) without sorting them all.

/** Keeps the best `k` items offered: a heap with the worst kept item on top, so an offer costs O(log k). */
export class TopK<T> {
  private readonly heap: T[] = []

  constructor(
    private readonly k: number,
    /** The ranking: whether `a` goes before `b`. */
    private readonly better: (a: T, b: T) => boolean,
  ) {}

  offer(h: T): void {
    const heap = this.heap
    if (heap.length < this.k) {
      heap.push(h)
      this.up(heap.length - 1)
    } else if (this.k > 0 && this.better(h, heap[0]!)) {
      heap[0] = h
      this.down(0)
    }
  }

  sorted(): T[] {
    return [...this.heap].sort((a, b) => (this.better(a, b) ? -1 : 1))
  }

  private up(i: number): void {
    const heap = this.heap
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.better(heap[parent]!, heap[i]!)) break
      ;[heap[parent], heap[i]] = [heap[i]!, heap[parent]!]
      i = parent
    }
  }

  private down(i: number): void {
    const heap = this.heap
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let worst = i
      if (l < heap.length && this.better(heap[worst]!, heap[l]!)) worst = l
      if (r < heap.length && this.better(heap[worst]!, heap[r]!)) worst = r
      if (worst === i) return
      ;[heap[worst], heap[i]] = [heap[i]!, heap[worst]!]
      i = worst
    }
  }
}
