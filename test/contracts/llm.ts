import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, type Layer, type Scope } from "effect"
import { Llm } from "../../src/ports/Llm.js"

/** How a contract run drives an adapter: what the model answers next, and a model that cannot be reached. */
export interface LlmFixture {
  /** An adapter whose model answers `answers`, one per completion, in order. */
  readonly answering: (answers: ReadonlyArray<string>) => Effect.Effect<Layer.Layer<Llm>, never, Scope.Scope>
  /** An adapter whose model cannot be reached. */
  readonly unreachable: Effect.Effect<Layer.Layer<Llm>, never, Scope.Scope>
}

/**
 * What every Llm adapter that reaches a model must do (the OpenAI-compatible client today). The `none` adapter is the
 * other kind: unavailable by design (`noModelContract`).
 */
export const llmContract = (name: string, fixture: LlmFixture) =>
  describe(`Llm contract: ${name}`, () => {
    const request = (content: string) => ({
      system: "You answer in one word.",
      messages: [{ role: "user" as const, content }],
      maxTokens: 8
    })

    it.scopedLive(
      "says it is available, which model and where; answers each completion with the model's text as given",
      () =>
        Effect.gen(function* () {
          const layer = yield* fixture.answering(["merge", "  add\n"])
          const [info, a, b] = yield* Effect.flatMap(Llm, (llm) =>
            Effect.all([Effect.succeed(llm.info), llm.complete(request("one")), llm.complete(request("two"))])
          ).pipe(Effect.provide(layer))
          expect(info.available).toBe(true)
          expect(info.model).not.toBe("")
          expect(info.endpoint).not.toBe("")
          expect([a, b]).toEqual(["merge", "  add\n"])
        })
    )

    it.scopedLive("a model that cannot be reached is a typed, one-line failure, never a defect", () =>
      Effect.gen(function* () {
        const layer = yield* fixture.unreachable
        const r = yield* Effect.either(
          Effect.flatMap(Llm, (llm) => llm.complete(request("one"))).pipe(Effect.provide(layer))
        )
        expect(Either.isLeft(r)).toBe(true)
        if (Either.isLeft(r)) {
          expect(["LlmUnavailable", "LlmTimeout", "LlmBadResponse"]).toContain(r.left._tag)
          expect(r.left.message).not.toMatch(/[\r\n]/)
        }
      })
    )
  })

/** What an adapter without a model must do: say so, and fail every completion as unavailable with what to configure. */
export const noModelContract = (name: string, layer: Layer.Layer<Llm>) =>
  describe(`Llm contract (no model): ${name}`, () => {
    it.effect("is unavailable and fails every completion as such, on one line", () =>
      Effect.gen(function* () {
        const llm = yield* Llm
        expect(llm.info.available).toBe(false)
        const r = yield* Effect.either(llm.complete({ system: "", messages: [], maxTokens: 1 }))
        expect(Either.isLeft(r) && r.left._tag).toBe("LlmUnavailable")
        if (Either.isLeft(r)) expect(r.left.message).not.toMatch(/[\r\n]/)
      }).pipe(Effect.provide(layer))
    )
  })
