/**
 * Latency samples and their percentiles. Every sample is kept (a few hundred thousand doubles
 * at most per row), so percentiles are exact, where an HDR histogram would round them to its
 * bucket precision. Values are milliseconds.
 */
export class Histogram {
  private values = new Float64Array(16_384)
  private size = 0
  private sorted = true

  /** Records one sample. */
  record(ms: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.size++] = ms
    this.sorted = false
  }

  /** Number of samples. */
  get count(): number {
    return this.size
  }

  /** The value at percentile `p` (0..100), nearest-rank; NaN without samples. */
  percentile(p: number): number {
    if (this.size === 0) return Number.NaN
    if (!this.sorted) {
      this.values.subarray(0, this.size).sort()
      this.sorted = true
    }
    const rank = Math.min(this.size, Math.max(1, Math.ceil((p / 100) * this.size)))
    return this.values[rank - 1]
  }

  /** The arithmetic mean; NaN without samples. */
  mean(): number {
    if (this.size === 0) return Number.NaN
    let sum = 0
    for (let i = 0; i < this.size; i++) sum += this.values[i]
    return sum / this.size
  }

  /** p50, p90, p99, p99.9 and max. */
  summary(): LatencySummary {
    return {
      p50: this.percentile(50),
      p90: this.percentile(90),
      p99: this.percentile(99),
      p999: this.percentile(99.9),
      max: this.percentile(100),
      mean: this.mean(),
      count: this.size
    }
  }
}

/** Percentiles of one run, in milliseconds. */
export interface LatencySummary {
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly p999: number
  readonly max: number
  readonly mean: number
  readonly count: number
}
