/**
 * A WebAssembly SIMD dot-product kernel for `searchVectorIndex`: the rows of an index live in a WebAssembly memory of
 * their own, next to room for one query and its scores, so a query copies nothing but itself. The module is written
 * out below byte by byte (no build step) and compiled on first use; where WebAssembly or its SIMD proposal is missing,
 * or memory cannot be had, every function here says so (`undefined`) and the caller uses plain JavaScript instead.
 */

/** The little of the WebAssembly JS API used here (the project's `lib` has no DOM, hence no WebAssembly types). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> }
  readonly Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer }
}

type ScoresFn = (rows: number, n: number, dims: number, query: number, out: number) => void

/*
 * (module
 *   (import "m" "memory" (memory 0))
 *   ;; out[r] = Σ rows[r·dims + i] · query[i] for r < n, in float32; pointers in bytes
 *   (func (export "scores") (param $rows i32) (param $n i32) (param $dims i32) (param $query i32) (param $out i32)
 *     (local $end i32) (local $bytes i32) (local $p i32) (local $q i32) (local $wide i32)
 *     (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $s f32)
 *     (local.set $end (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))))
 *     (local.set $bytes (i32.shl (local.get $dims) (i32.const 2)))
 *     (block $done (loop $row
 *       (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
 *       (local.set $p (local.get $rows))
 *       (local.set $q (local.get $query))
 *       ;; the row's first dims − dims mod 16 floats go four f32x4 accumulators at a time
 *       (local.set $wide (i32.add (local.get $rows) (i32.and (local.get $bytes) (i32.const -64))))
 *       (local.set $rows (i32.add (local.get $rows) (local.get $bytes)))   ;; now the row's end
 *       (local.set $a3 (local.tee $a2 (local.tee $a1 (local.tee $a0 (v128.const i64x2 0 0)))))
 *       (block $b16 (loop $l16
 *         (br_if $b16 (i32.ge_u (local.get $p) (local.get $wide)))
 *         (local.set $a0 (f32x4.add (local.get $a0)
 *           (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
 *         (local.set $a1 … offset=16)  (local.set $a2 … offset=32)  (local.set $a3 … offset=48)
 *         (local.set $p (i32.add (local.get $p) (i32.const 64)))
 *         (local.set $q (i32.add (local.get $q) (i32.const 64)))
 *         (br $l16)))
 *       (local.set $a0 (f32x4.add (f32x4.add (local.get $a0) (local.get $a1))
 *                                 (f32x4.add (local.get $a2) (local.get $a3))))
 *       (local.set $s (f32.add (f32.add (lane 0) (lane 1)) (f32.add (lane 2) (lane 3))))     ;; lanes of $a0
 *       ;; the scalar tail: the last dims mod 16 floats
 *       (block $b1 (loop $l1
 *         (br_if $b1 (i32.ge_u (local.get $p) (local.get $rows)))
 *         (local.set $s (f32.add (local.get $s) (f32.mul (f32.load (local.get $p)) (f32.load (local.get $q)))))
 *         (local.set $p (i32.add (local.get $p) (i32.const 4)))
 *         (local.set $q (i32.add (local.get $q) (i32.const 4)))
 *         (br $l1)))
 *       (f32.store (local.get $out) (local.get $s))
 *       (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *       (br $row))))
 */

// locals: the five parameters, then $end $bytes $p $q $wide (i32), $a0…$a3 (v128), $s (f32)
const [ROWS, N, DIMS, QUERY, OUT, END, BYTES, P, Q, WIDE] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const
const [A0, A1, A2, A3, S] = [10, 11, 12, 13, 14] as const
const I32 = 0x7f
const F32 = 0x7d
const V128 = 0x7b
const [BLOCK, LOOP, BR, BR_IF, FIN, VOID] = [0x02, 0x03, 0x0c, 0x0d, 0x0b, 0x40]
const [GET, SET, TEE] = [0x20, 0x21, 0x22]
const [I32_CONST, I32_GE_U, I32_ADD, I32_AND, I32_SHL] = [0x41, 0x4f, 0x6a, 0x71, 0x74]
const [F32_LOAD, F32_STORE, F32_ADD, F32_MUL] = [0x2a, 0x38, 0x92, 0x94]
// SIMD instructions: the 0xfd prefix, then the opcode as unsigned LEB128
const V128_LOAD = [0xfd, 0x00]
const V128_CONST = [0xfd, 0x0c]
const EXTRACT_LANE = [0xfd, 0x1f]
const F32X4_ADD = [0xfd, 0xe4, 0x01]
const F32X4_MUL = [0xfd, 0xe6, 0x01]
const ALIGN4 = 2 // memarg alignment hint, log2: rows start on any float

/** `$a += rows[p + offset] · query[q + offset]`, four floats at once. */
// prettier-ignore
const accumulate = (a: number, offset: number) => [
  GET, a, GET, P, ...V128_LOAD, ALIGN4, offset, GET, Q, ...V128_LOAD, ALIGN4, offset,
  ...F32X4_MUL, ...F32X4_ADD, SET, a
]
const lane = (i: number) => [GET, A0, ...EXTRACT_LANE, i]
/** `$local += step` */
const advance = (local: number, step: number[]) => [GET, local, I32_CONST, ...step, I32_ADD, SET, local]

// prettier-ignore
const body = [
  3, 5, I32, 4, V128, 1, F32, // local declarations
  GET, OUT, GET, N, I32_CONST, 2, I32_SHL, I32_ADD, SET, END,
  GET, DIMS, I32_CONST, 2, I32_SHL, SET, BYTES,
  BLOCK, VOID, LOOP, VOID,
  GET, OUT, GET, END, I32_GE_U, BR_IF, 1,
  GET, ROWS, SET, P,
  GET, QUERY, SET, Q,
  GET, ROWS, GET, BYTES, I32_CONST, 0x40 /* -64 */, I32_AND, I32_ADD, SET, WIDE,
  GET, ROWS, GET, BYTES, I32_ADD, SET, ROWS,
  ...V128_CONST, ...Array.from({ length: 16 }, () => 0), TEE, A0, TEE, A1, TEE, A2, SET, A3,
  BLOCK, VOID, LOOP, VOID,
  GET, P, GET, WIDE, I32_GE_U, BR_IF, 1,
  ...accumulate(A0, 0), ...accumulate(A1, 16), ...accumulate(A2, 32), ...accumulate(A3, 48),
  ...advance(P, [0xc0, 0x00] /* 64 */), ...advance(Q, [0xc0, 0x00]),
  BR, 0, FIN, FIN,
  GET, A0, GET, A1, ...F32X4_ADD, GET, A2, GET, A3, ...F32X4_ADD, ...F32X4_ADD, SET, A0,
  ...lane(0), ...lane(1), F32_ADD, ...lane(2), ...lane(3), F32_ADD, F32_ADD, SET, S,
  BLOCK, VOID, LOOP, VOID,
  GET, P, GET, ROWS, I32_GE_U, BR_IF, 1,
  GET, S, GET, P, F32_LOAD, ALIGN4, 0, GET, Q, F32_LOAD, ALIGN4, 0, F32_MUL, F32_ADD, SET, S,
  ...advance(P, [4]), ...advance(Q, [4]),
  BR, 0, FIN, FIN,
  GET, OUT, GET, S, F32_STORE, ALIGN4, 0,
  ...advance(OUT, [4]),
  BR, 0, FIN, FIN,
  FIN
]

/** Unsigned LEB128, for section and body sizes. */
const leb = (n: number): number[] => (n < 0x80 ? [n] : [(n & 0x7f) | 0x80, ...leb(n >>> 7)])
const section = (id: number, content: number[]) => [id, ...leb(content.length), ...content]
const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))]

// prettier-ignore
const MODULE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]), // types: (i32 ×5) → ()
  ...section(2, [1, ...name("m"), ...name("memory"), 0x02, 0x00, 0]), // imports: memory, at least 0 pages
  ...section(3, [1, 0]), // functions: one, of type 0
  ...section(7, [1, ...name("scores"), 0x00, 0]), // exports: function 0 as "scores"
  ...section(10, [1, ...leb(body.length), ...body]) // code
])

const PAGE = 65536
const MAX_PAGES = 65535 // below 4 GiB, so no byte address (out + 4n included) wraps around

let compiled: { readonly wasm: WasmApi; readonly module: object } | null | undefined

/** The compiled kernel, or `null` where this runtime has no WebAssembly SIMD. Compiled once, on first use. */
const kernel = () => {
  if (compiled === undefined) {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly
    try {
      compiled = wasm === undefined ? null : { wasm, module: new wasm.Module(MODULE) }
    } catch {
      compiled = null // no SIMD (a CompileError), or WebAssembly disabled
    }
  }
  return compiled
}

/** Whether this runtime runs the WebAssembly SIMD kernel (Node ≥ 16.4 does). */
export const simdAvailable = (): boolean => kernel() !== null

/** An index's rows in WebAssembly memory, with room for one query and the scores of all rows. */
export interface WasmRows {
  readonly dims: number
  readonly size: number
  /** `size × dims` floats, row after row. */
  readonly rows: Float32Array
  /** Where `run` reads the query from: `dims` floats. */
  readonly query: Float32Array
  /** Where `run` writes row `r`'s dot product with the query: `size` floats. */
  readonly scores: Float32Array
  /** Fills `scores[0, count)` with the float32 dot products of `query` and the first `count` rows. */
  readonly run: (count: number) => void
}

const align16 = (bytes: number) => Math.ceil(bytes / 16) * 16

/**
 * Zeroed rows for `size` vectors of `dims` floats in a WebAssembly memory of their own; `undefined` without the SIMD
 * kernel or when the memory cannot be had (over 4 GiB, or the runtime refuses it). The memory never grows, so the
 * views stay valid for as long as they are referenced.
 */
export const allocateWasmRows = (dims: number, size: number): WasmRows | undefined => {
  const k = kernel()
  if (k === null || !Number.isInteger(dims) || !Number.isInteger(size) || dims <= 0 || size <= 0) return undefined
  const queryAt = align16(dims * size * 4)
  const scoresAt = queryAt + align16(dims * 4)
  const pages = Math.ceil((scoresAt + size * 4) / PAGE)
  if (pages > MAX_PAGES) return undefined
  try {
    const memory = new k.wasm.Memory({ initial: pages })
    const scoresFn = new k.wasm.Instance(k.module, { m: { memory } }).exports["scores"] as ScoresFn
    return {
      dims,
      size,
      rows: new Float32Array(memory.buffer, 0, dims * size),
      query: new Float32Array(memory.buffer, queryAt, dims),
      scores: new Float32Array(memory.buffer, scoresAt, size),
      run: (count) => scoresFn(0, Math.max(0, Math.min(size, count)), dims, queryAt, scoresAt)
    }
  } catch {
    return undefined // out of memory or address space: the caller keeps a plain Float32Array
  }
}
