import { describe, expect, it } from "vitest"
import { fmt, median, range, spread, times, verdict } from "../../bench/stats.js"

describe("bench stats", () => {
  it("range gives the smallest and largest sample in the given format, whatever their order", () => {
    expect(range([3, 0.25, 12.5, 1])).toBe("250 µs – 12.50 ms")
    expect(range([2, 4], (x) => `${x}/s`)).toBe("2/s – 4/s")
    expect(range([7])).toBe(`${fmt(7)} – ${fmt(7)}`)
    expect(range([])).toBe("–")
  })

  it("spread is the median with the range beside it", () => {
    const xs = [5, 1, 3]
    expect(median(xs)).toBe(3)
    expect(spread(xs)).toBe("3.00 ms (1.00 ms – 5.00 ms)")
  })

  it("ratios keep three digits when small, and the target cell reads met or NOT met", () => {
    expect(times(2.314)).toBe("2.31×")
    expect(times(0.0042)).toBe("0.004×")
    expect(times(0)).toBe("0.00×")
    const target = { name: "add", measured: "1 ms", baseline: "0.5 ms", ratio: 2, target: "≤ 1.5×" }
    expect(verdict({ ...target, met: false })).toBe("≤ 1.5×: NOT met")
    expect(verdict({ ...target, ratio: 1.2, met: true })).toBe("≤ 1.5×: met")
  })
})
